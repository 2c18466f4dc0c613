#pragma once
#include "GMCOrganicMovementComponent.h"
#include "CoreMover.generated.h"
UCLASS()
class UCoreMover : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
public:
	virtual void BindReplicationData_Implementation() override;
protected:
	UPROPERTY() float Heat = 0.f;
	UPROPERTY() bool bOverdriveInput = false;
};
