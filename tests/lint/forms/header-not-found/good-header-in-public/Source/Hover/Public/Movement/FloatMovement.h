#pragma once
#include "GMCOrganicMovementComponent.h"
#include "FloatMovement.generated.h"

UCLASS()
class UFloatMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
public:
	virtual void BindReplicationData_Implementation() override;
	virtual void MovementUpdate_Implementation(float DeltaSeconds) override;
	float FloatHeight = 0.f;
};
