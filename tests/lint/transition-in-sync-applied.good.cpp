class UDeathMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bIsDead = false;
	bool bLastSeenDead = false;
	float CachedSpeedScale = 1.f;
	void OnDeathStateChanged(bool bDead);
};

void UDeathMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bIsDead, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::PeriodicAndOnChange_Output, EGMC_InterpolationFunction::NearestNeighbour);
}

// The source document's example.
void UDeathMovement::WorldTickEnd_Implementation(float DeltaTime)
{
	Super::WorldTickEnd_Implementation(DeltaTime);
	if (bIsDead != bLastSeenDead) { bLastSeenDead = bIsDead; OnDeathStateChanged(bIsDead); }
}

// Re-deriving an unbound cache from bound values is what OnSyncDataApplied is for.
void UDeathMovement::OnSyncDataApplied_Implementation(const FGMC_PawnState& State, EGMC_NetContext Context)
{
	Super::OnSyncDataApplied_Implementation(State, Context);
	CachedSpeedScale = bIsDead ? 0.f : 1.f;
}
