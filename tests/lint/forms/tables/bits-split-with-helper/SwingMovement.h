#pragma once
#include "GMCOrganicMovementComponent.h"
#include "SwingMovement.generated.h"

UCLASS()
class USwingMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
public:
	virtual void BindReplicationData_Implementation() override;
	virtual void PrePhysicsUpdate_Implementation(float DeltaSeconds) override;
	void BindRope(UGMC_MovementUtilityCmp* Target);
	void AimRope();

	FVector RopeAnchor = FVector::ZeroVector;
	FVector RopeAxis = FVector::ZeroVector;
	FVector2D SwingInput = FVector2D::ZeroVector;
	double SwingArc = 0.0;
};
