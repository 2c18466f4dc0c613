// Server-only outcomes and the owner's live move, each written another way.
class UMineMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bDropMine = false;
	float MineCooldown = 0.f;
	TSubclassOf<AActor> MineClass;
};

void UMineMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bDropMine, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindSinglePrecisionFloat(MineCooldown, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
}

void UMineMovement::PostMovementUpdate_Implementation(float DeltaSeconds)
{
	Super::PostMovementUpdate_Implementation(DeltaSeconds);
	if (bDropMine && MineCooldown <= 0.f)
	{
		MineCooldown = 4.f;
		CL_DoNotCombineNextMove();
		if (GetOwner()->HasAuthority() && !IsSimulatedMove())
		{
			GetWorld()->SpawnActor<AActor>(MineClass, GetActorLocation(), FRotator::ZeroRotator);
		}
		if (GetNetMode() < NM_Client)
		{
			UGameplayStatics::ApplyRadialDamage(this, 10.f, GetActorLocation(), 200.f, nullptr, TArray<AActor*>());
		}
		if (IsLocalMove())
		{
			UGameplayStatics::PlaySoundAtLocation(this, nullptr, GetActorLocation());
		}
	}
	MineCooldown = FMath::Max(0.f, MineCooldown - DeltaSeconds);
}
