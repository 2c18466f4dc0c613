// The comparison sits in a function OnSyncDataApplied calls.
class ULandingMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bGrounded = false;
	bool bPrevGrounded = false;
	void CheckLanding();
};

void ULandingMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bGrounded, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::NearestNeighbour);
}

void ULandingMovement::OnSyncDataApplied_Implementation(const FGMC_PawnState& State, EGMC_NetContext Context)
{
	Super::OnSyncDataApplied_Implementation(State, Context);
	CheckLanding();
}

void ULandingMovement::CheckLanding()
{
	const bool bJustLanded = bGrounded && !bPrevGrounded;
	if (bGrounded != bPrevGrounded) // expect: transition-in-sync-applied
	{
		bPrevGrounded = bGrounded;
		if (bJustLanded)
		{
			UGameplayStatics::PlaySoundAtLocation(this, nullptr, GetActorLocation());
		}
	}
}
