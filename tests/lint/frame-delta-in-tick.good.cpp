class UDeltaMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float Stamina = 100.f;
};

void UDeltaMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindSinglePrecisionFloat(Stamina, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
}

void UDeltaMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	Stamina = FMath::Max(0.f, Stamina - DeltaSeconds * 5.f);
}
