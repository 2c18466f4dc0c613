class URampMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float Ramp = 0.f;
	float Speed = 0.f;
	float SpeedScale = 1.f;
	float MaxSpeed = 600.f;
	FVector RequestedVelocity;
	float LandingSpeed = 0.f;
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
	// A setting kept in range: the same value every move.
	MaxSpeed = FMath::Clamp(MaxSpeed, 0.f, 2000.f);
	// Read only by an assertion, then reset.
	check(LandingSpeed == 0.f);
	LandingSpeed = 0.f;
}

void URampMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	Ramp = FMath::Min(1.f, Ramp + DeltaSeconds);
	float Local = Ramp * 2.f;
	Local += 1.f;
	Speed = FMath::Min(MaxSpeed, 600.f * Ramp * SpeedScale + Local + RequestedVelocity.Size());
	// A request set from outside the move (path following), consumed and cleared.
	RequestedVelocity = FVector::ZeroVector;
}
