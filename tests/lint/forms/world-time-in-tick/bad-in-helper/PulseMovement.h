#pragma once
#include "GMCOrganicMovementComponent.h"
#include "PulseMovement.generated.h"

UCLASS()
class UPulseClockMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
public:
	virtual void BindReplicationData_Implementation() override;
	virtual void MovementUpdate_Implementation(float DeltaSeconds) override;

private:
	float PulsePhase() const;
	float Bob = 0.f;
};
