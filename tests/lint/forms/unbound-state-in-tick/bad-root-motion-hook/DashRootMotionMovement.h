#pragma once
#include "GMCOrganicMovementComponent.h"
#include "DashRootMotionMovement.generated.h"

UCLASS()
class UDashRootMotionMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
public:
	virtual void BindReplicationData_Implementation() override;
	virtual void MovementUpdate_Implementation(float DeltaSeconds) override;
	virtual void PreProcessRootMotion(const FGMC_AnimMontageInstance& MontageInstance, FRootMotionMovementParams& InOutRootMotionParams, float DeltaSeconds) override;

protected:
	float RootMotionBlend = 0.f;
	FVector DashVelocity;
};
