#pragma once
#include "GMCOrganicMovementComponent.h"
#include "KitMovement.generated.h"

UCLASS()
class UKitMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
public:
	virtual void BindReplicationData_Implementation() override;
	float Stamina = 100.f;
	bool bInputSprint = false;
};
