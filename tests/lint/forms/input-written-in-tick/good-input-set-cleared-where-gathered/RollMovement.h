#pragma once
#include "GMCOrganicMovementComponent.h"
#include "RollMovement.generated.h"

class URollInputs;

UCLASS()
class URollMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
public:
	virtual void BindReplicationData_Implementation() override;
	virtual void PreLocalMoveExecution_Implementation(const FGMC_Move& LocalMove) override;
	virtual void MovementUpdate_Implementation(float DeltaSeconds) override;

	URollInputs* RollInput = nullptr;
	bool bRolling = false;
};

// The input object: the component passes itself, the object binds through that pointer.
UCLASS()
class URollInputs : public UObject
{
	GENERATED_BODY()
public:
	void BindTo(URollMovement* Owner);
	bool bWantsRoll = false;
	float RollAxis = 0.f;
};
