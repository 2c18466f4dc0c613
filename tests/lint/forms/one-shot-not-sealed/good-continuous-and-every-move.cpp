// Values that change continuously or every move: a re-run gives the same result.
class UStaminaMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bInputSprint = false;
	float Stamina = 100.f;
	float RegenDelay = 0.f;
	int32 MovesRun = 0;
	bool bExhausted = false;
};

void UStaminaMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bInputSprint, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindSinglePrecisionFloat(Stamina, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
	BindSinglePrecisionFloat(RegenDelay, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
	BindInt(MovesRun, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindBool(bExhausted, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}

void UStaminaMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	MovesRun++;
	if (bInputSprint && Stamina > 0.f)
	{
		Stamina = FMath::Max(0.f, Stamina - 20.f * DeltaSeconds);
		RegenDelay = FMath::Max(RegenDelay, DeltaSeconds);
	}
	else if (RegenDelay > 0.f)
	{
		RegenDelay -= DeltaSeconds;
	}
	else
	{
		Stamina = FMath::Min(100.f, Stamina + 10.f * DeltaSeconds);
	}
	if (Stamina <= 0.f)
	{
		bExhausted = true;
	}
}
