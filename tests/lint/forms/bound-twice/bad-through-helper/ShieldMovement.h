#pragma once
#include "GMCOrganicMovementComponent.h"
#include "ShieldMovement.generated.h"

UCLASS()
class UShieldMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
public:
	virtual void BindReplicationData_Implementation() override;

private:
	void BindFloatOutput(float& Value);
	float ShieldCharge = 0.f;
};
