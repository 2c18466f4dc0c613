// Pitfall 8 in its most common form, in a class whose bindings a parent makes elsewhere.
class UHeroMovement : public UProjectBaseMovement
{
	GENERATED_BODY()
	bool bIsDead = false;
	bool bWasDead = false;
	void OnDied();
};

void UHeroMovement::OnSyncDataApplied_Implementation(const FGMC_PawnState& State, EGMC_NetContext Context)
{
	Super::OnSyncDataApplied_Implementation(State, Context);
	if (bIsDead && !bWasDead) // expect: transition-in-sync-applied
	{
		OnDied();
	}
	bWasDead = bIsDead;
}
