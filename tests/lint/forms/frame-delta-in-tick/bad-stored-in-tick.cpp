// TickComponent keeps the frame's delta under another name; a hook reads it.
class UStoredDeltaMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float LastTickSeconds = 0.f;
	float Sway = 0.f;
};

void UStoredDeltaMovement::TickComponent(float Delta, ELevelTick TickType, FActorComponentTickFunction* ThisTickFunction)
{
	Super::TickComponent(Delta, TickType, ThisTickFunction);
	LastTickSeconds = Delta * 1.f;
}

void UStoredDeltaMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindSinglePrecisionFloat(Sway, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
}

void UStoredDeltaMovement::PreMovementUpdate_Implementation(float DeltaSeconds)
{
	Super::PreMovementUpdate_Implementation(DeltaSeconds);
	Sway = FMath::FInterpTo(Sway, 0.f, LastTickSeconds, 3.f); // expect: frame-delta-in-tick
}
