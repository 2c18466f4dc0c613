class UDeathMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bIsDead = false;
	bool bLastSeenDead = false;
	int32 Stance = 0;
	int32 ShownStance = 0;
	void OnDeathStateChanged(bool bDead);
	void OnStanceChanged();
};

void UDeathMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bIsDead, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::PeriodicAndOnChange_Output, EGMC_InterpolationFunction::NearestNeighbour);
	BindInt(Stance, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::NearestNeighbour);
}

void UDeathMovement::OnSyncDataApplied_Implementation(const FGMC_PawnState& State, EGMC_NetContext Context)
{
	Super::OnSyncDataApplied_Implementation(State, Context);
	if (bIsDead != bLastSeenDead) // expect: transition-in-sync-applied
	{
		bLastSeenDead = bIsDead;
		OnDeathStateChanged(bIsDead);
	}
	if (Stance != ShownStance) // expect: transition-in-sync-applied
	{
		ShownStance = Stance;
		OnStanceChanged();
	}
}
