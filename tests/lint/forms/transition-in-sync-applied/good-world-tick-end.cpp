// The document's fix: the copy compared in WorldTickEnd; OnSyncDataApplied only reads state.
class UKnockdownMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bKnockedDown = false;
	bool bWasKnockedDown = false;
	void OnKnockedDown();
	void ApplyKnockdownCollision(bool bDown);
};

void UKnockdownMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bKnockedDown, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::PeriodicAndOnChange_Output, EGMC_InterpolationFunction::NearestNeighbour);
}

void UKnockdownMovement::OnSyncDataApplied_Implementation(const FGMC_PawnState& State, EGMC_NetContext Context)
{
	Super::OnSyncDataApplied_Implementation(State, Context);
	if (bKnockedDown)
	{
		ApplyKnockdownCollision(true);
	}
}

void UKnockdownMovement::WorldTickEnd_Implementation()
{
	Super::WorldTickEnd_Implementation();
	if (bKnockedDown && !bWasKnockedDown)
	{
		OnKnockedDown();
	}
	bWasKnockedDown = bKnockedDown;
}
