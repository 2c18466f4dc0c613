class URampMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float Ramp = 0.f;
	float Speed = 0.f;
	AActor* CachedTarget = nullptr;
};

void URampMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindSinglePrecisionFloat(Speed, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
}

void URampMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	Ramp = FMath::Min(1.f, Ramp + DeltaSeconds); // expect: unbound-state-in-tick
	Speed = 600.f * Ramp;
	if (!CachedTarget)
	{
		CachedTarget = GetOwner();
	}
}
