// The server's synced clock and the time since creation, in a hook.
class URegenMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float Energy = 0.f;
	double LastUse = 0.0;
};

void URegenMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindSinglePrecisionFloat(Energy, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
}

void URegenMovement::PostPhysicsUpdate_Implementation(float DeltaSeconds)
{
	Super::PostPhysicsUpdate_Implementation(DeltaSeconds);
	const double Since = GetWorld()->GetGameState()->GetServerWorldTimeSeconds() - LastUse; // expect: world-time-in-tick
	if (Since > 2.0)
	{
		Energy = FMath::Min(100.f, Energy + 5.f * DeltaSeconds);
	}
	const float Age = GetOwner()->GetGameTimeSinceCreation(); // expect: world-time-in-tick
	Energy -= Age > 1000.f ? 0.f : 0.f;
}
