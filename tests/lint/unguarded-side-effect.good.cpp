class UMyMovementCmp : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bInput_Dash = false;
	float DashCooldown = 0.f;
	float DashCooldownDuration = 1.f;
	float DashSpeed = 1200.f;
	USoundBase* DashSound = nullptr;
	void PlayDashCosmetics();
};

void UMyMovementCmp::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bInput_Dash, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindSinglePrecisionFloat(DashCooldown, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
}

// The source document's example.
void UMyMovementCmp::GenPredictionTick_Implementation(float DeltaTime)
{
	Super::GenPredictionTick_Implementation(DeltaTime);
	const bool bLiveMove = !CL_IsReplaying() && !IsSimulatedMove();
	if (bInput_Dash && DashCooldown <= 0.f)
	{
		DashCooldown = DashCooldownDuration; // bound: replays restore it
		Velocity += UpdatedComponent->GetForwardVector() * DashSpeed;
		if (bLiveMove) { PlayDashCosmetics(); } // once, locally
		CL_DoNotCombineNextMove(); // seal the move that fired
	}
	DashCooldown = FMath::Max(0.f, DashCooldown - DeltaTime);
}

void UMyMovementCmp::PlayDashCosmetics()
{
	UGameplayStatics::PlaySoundAtLocation(this, DashSound, GetActorLocation());
}

void UMyMovementCmp::PostMovementUpdate_Implementation(float DeltaSeconds)
{
	Super::PostMovementUpdate_Implementation(DeltaSeconds);
	if (CL_IsReplaying() || IsSimulatedMove())
	{
		return;
	}
	UGameplayStatics::PlaySound2D(this, DashSound);
}
