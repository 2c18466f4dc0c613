// The document's guard through a local, an early return in the caller, and a warning printed
// once behind a set-once latch.
class UFlareMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bInputFlare = false;
	float FlareCooldown = 0.f;
	bool bWarnedMissingFx = false;
	UNiagaraSystem* FlareFx = nullptr;
};

void UFlareMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bInputFlare, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindSinglePrecisionFloat(FlareCooldown, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
}

void UFlareMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	const bool bLive = !CL_IsReplaying() && !IsSimulatedMove();
	if (bInputFlare && FlareCooldown <= 0.f)
	{
		FlareCooldown = 3.f;
		CL_DoNotCombineNextMove();
		if (bLive)
		{
			UNiagaraFunctionLibrary::SpawnSystemAtLocation(this, FlareFx, GetActorLocation());
		}
		Cosmetics();
	}
	FlareCooldown = FMath::Max(0.f, FlareCooldown - DeltaSeconds);
	if (!FlareFx && !bWarnedMissingFx)
	{
		GEngine->AddOnScreenDebugMessage(-1, 5.f, FColor::Yellow, TEXT("no flare effect set"));
		bWarnedMissingFx = true;
	}
}

void UFlareMovement::Cosmetics()
{
	if (CL_IsReplaying() || IsSimulatedMove())
	{
		return;
	}
	UGameplayStatics::PlaySoundAtLocation(this, nullptr, GetActorLocation());
}
