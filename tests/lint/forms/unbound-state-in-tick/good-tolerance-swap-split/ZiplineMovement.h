#pragma once
#include "GMCOrganicMovementComponent.h"
#include "ZiplineMovement.generated.h"

UCLASS()
class UZiplineMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
public:
	virtual void BindReplicationData_Implementation() override;
	virtual void PhysicsCustom_Implementation(float DeltaSeconds) override;
protected:
	void KeepToleranceForRide();
	bool bOnLine = false;
	uint8 bRideTolerance : 1;
	float RestoreRotationTolerance = 0.f;
};
