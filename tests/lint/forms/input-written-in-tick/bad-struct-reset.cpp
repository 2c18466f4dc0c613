// Inputs kept in a struct; the tick resets the whole struct after use.
USTRUCT()
struct FJumpInput
{
	GENERATED_BODY()
	bool bJumpPressed = false;
	FVector2D Steer;
};

class UStructInputMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	FJumpInput PendingInput;
};

void UStructInputMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(PendingInput.bJumpPressed, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindCompressedVector2D(PendingInput.Steer, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}

void UStructInputMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (PendingInput.bJumpPressed && IsMovingOnGround())
	{
		Velocity.Z = 600.f;
	}
	PendingInput = {}; // expect: input-written-in-tick
}
