// One branch seals its own move (a montage starting); the dash branch fires an event and
// changes bound state with no seal in its move: the other branch's seal does not cover it.
class UDashMontageMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bInputDash = false;
	bool bInputEmote = false;
	int32 DashCharges = 2;
	bool bEmoting = false;
	void StartEmote();
};

void UDashMontageMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bInputDash, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindBool(bInputEmote, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindInt(DashCharges, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindBool(bEmoting, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}

void UDashMontageMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (bInputEmote && !bEmoting)
	{
		StartEmote();
	}
	if (bInputDash && DashCharges > 0)
	{
		DashCharges -= 1; // expect: one-shot-not-sealed
		if (!CL_IsReplaying() && !IsSimulatedMove())
		{
			UGameplayStatics::PlaySoundAtLocation(this, DashSound, UpdatedComponent->GetComponentLocation());
		}
	}
}

void UDashMontageMovement::StartEmote()
{
	bEmoting = true;
	CL_DoNotCombineNextMove();
}
