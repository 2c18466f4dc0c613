// A tolerance flag the move also reads outside its own branches: the boost it selects makes
// the move's outcome depend on the flag, so a replay starting from the newest flag differs.
class UGlideMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bGliding = false;
	bool bWideTolerance = false;
	float GlideLift = 0.f;
};

void UGlideMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bGliding, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindSinglePrecisionFloat(GlideLift, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::TargetValue);
}

void UGlideMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	GlideLift = bWideTolerance ? 0.5f : 0.2f;
	if (bGliding && !bWideTolerance)
	{
		ReplicationSettings.DefaultErrorTolerances.ActorLocation = 90.f;
		bWideTolerance = true; // expect: unbound-state-in-tick
	}
	else if (!bGliding && bWideTolerance)
	{
		ReplicationSettings.DefaultErrorTolerances.ActorLocation = 10.f;
		bWideTolerance = false;
	}
}
