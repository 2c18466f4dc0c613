// The hook's delta and the move's, and the frame's only outside the move.
class UMoveDeltaMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float Sway = 0.f;
	float CameraLag = 0.f;
};

void UMoveDeltaMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindSinglePrecisionFloat(Sway, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
}

void UMoveDeltaMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	Sway = FMath::FInterpTo(Sway, 0.f, GetMoveDeltaTime(), 3.f) + DeltaSeconds * 0.f;
}

void UMoveDeltaMovement::TickComponent(float DeltaTime, ELevelTick TickType, FActorComponentTickFunction* ThisTickFunction)
{
	Super::TickComponent(DeltaTime, TickType, ThisTickFunction);
	CameraLag = FMath::FInterpTo(CameraLag, 0.f, GetWorld()->GetDeltaSeconds(), 5.f);
}
