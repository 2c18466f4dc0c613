// The document's one-shot: a shot fired from bound state, no event call, no seal.
class URifleMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bTriggerHeld = false;
	float RefireDelay = 0.f;
	int32 RoundsFired = 0;
};

void URifleMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bTriggerHeld, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindSinglePrecisionFloat(RefireDelay, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
	BindInt(RoundsFired, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::NearestNeighbour);
}

void URifleMovement::GenPredictionTick_Implementation(float DeltaTime)
{
	Super::GenPredictionTick_Implementation(DeltaTime);
	RefireDelay = FMath::Max(0.f, RefireDelay - DeltaTime);
	if (bTriggerHeld && RefireDelay == 0.f)
	{
		RoundsFired += 1; // expect: one-shot-not-sealed
		RefireDelay = 0.1f;
	}
}
