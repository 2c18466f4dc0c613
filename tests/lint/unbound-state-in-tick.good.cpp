class URampMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float Ramp = 0.f;
	float Speed = 0.f;
	float SpeedScale = 1.f;
};

void URampMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindSinglePrecisionFloat(Ramp, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
	BindSinglePrecisionFloat(Speed, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
}

// Recomputed at the start of every move from bound state: nothing carries over.
void URampMovement::PreMovementUpdate_Implementation(float DeltaSeconds)
{
	Super::PreMovementUpdate_Implementation(DeltaSeconds);
	SpeedScale = IsCrouching() ? 0.5f : 1.f;
}

void URampMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	Ramp = FMath::Min(1.f, Ramp + DeltaSeconds);
	float Local = Ramp * 2.f;
	Local += 1.f;
	Speed = 600.f * Ramp * SpeedScale + Local;
}
