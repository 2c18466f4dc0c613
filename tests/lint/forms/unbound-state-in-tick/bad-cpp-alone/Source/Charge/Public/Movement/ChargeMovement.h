#pragma once
#include "GMCOrganicMovementComponent.h"
#include "ChargeMovement.generated.h"

UCLASS()
class UChargeMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
public:
	virtual void BindReplicationData_Implementation() override;
	virtual void GenPredictionTick_Implementation(float DeltaTime) override;

private:
	bool bHoldCharge = false;
	float ChargeSeconds = 0.f;
};
