// The same apply/restore shape, but what the flag guards is a speed the move simulates with:
// a replay that starts with the newest flag skips the apply (or the restore) the original move
// made, so the flag is carried state.
class USprintMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bSprintHeld = false;
	bool bSprintApplied = false;
	float WalkTopSpeed = 600.f;
	float SprintTopSpeed = 900.f;
	float TopSpeed = 600.f;
};

void USprintMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bSprintHeld, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}

void USprintMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (bSprintHeld && !bSprintApplied)
	{
		TopSpeed = SprintTopSpeed; // expect: unbound-state-in-tick
		bSprintApplied = true; // expect: unbound-state-in-tick
	}
	else if (!bSprintHeld && bSprintApplied)
	{
		TopSpeed = WalkTopSpeed;
		bSprintApplied = false;
	}
	AddInputVector(GetPendingInputVector().GetClampedToMaxSize(1.f) * TopSpeed * DeltaSeconds);
}
