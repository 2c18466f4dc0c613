class UDeltaMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float Stamina = 100.f;
	float FrameDelta = 0.f;
};

void UDeltaMovement::TickComponent(float DeltaTime, ELevelTick TickType, FActorComponentTickFunction* ThisTickFunction)
{
	Super::TickComponent(DeltaTime, TickType, ThisTickFunction);
	FrameDelta = DeltaTime;
}

void UDeltaMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindSinglePrecisionFloat(Stamina, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
}

void UDeltaMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	Stamina -= GetWorld()->GetDeltaSeconds() * 5.f; // expect: frame-delta-in-tick
	Stamina += FrameDelta; // expect: frame-delta-in-tick
}
