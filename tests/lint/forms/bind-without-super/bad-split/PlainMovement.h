#pragma once
#include "GMCOrganicMovementComponent.h"
#include "PlainMovement.generated.h"

UCLASS()
class UPlainMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
public:
	virtual void BindReplicationData_Implementation() override;
	bool bInputWalk = false;
};
