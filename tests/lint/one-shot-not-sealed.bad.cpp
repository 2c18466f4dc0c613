class UShotMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bInputFire = false;
	float FireCooldown = 0.f;
	int32 ShotsFired = 0;
	bool bFiredThisMove = false;
	bool bBlocked = false;
	void PlayFireEffects();
};

void UShotMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bInputFire, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindSinglePrecisionFloat(FireCooldown, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
	BindInt(ShotsFired, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::NearestNeighbour);
	BindBool(bFiredThisMove, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::NearestNeighbour);
	BindBool(bBlocked, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::NearestNeighbour);
}

void UShotMovement::PreMovementUpdate_Implementation(float DeltaSeconds)
{
	Super::PreMovementUpdate_Implementation(DeltaSeconds);
	bFiredThisMove = false;
	bBlocked = false;
}

void UShotMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (bInputFire && FireCooldown <= 0.f)
	{
		FireCooldown = 0.25f; // expect: one-shot-not-sealed
		++ShotsFired;
		bFiredThisMove = true;
		if (!CL_IsReplaying() && !IsSimulatedMove())
		{
			PlayFireEffects();
		}
	}
	// A per-move flag with no event: re-raising it on a re-run changes nothing.
	if (Velocity.Z > 100.f)
	{
		bBlocked = true;
	}
	FireCooldown = FMath::Max(0.f, FireCooldown - DeltaSeconds);
}
