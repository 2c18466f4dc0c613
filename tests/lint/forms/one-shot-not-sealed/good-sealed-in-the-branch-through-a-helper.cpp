// The one-shot branch seals its own move through a helper called in the branch.
class UBlinkMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bInputBlink = false;
	int32 BlinkCharges = 2;
	void SealMove();
};

void UBlinkMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bInputBlink, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindInt(BlinkCharges, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}

void UBlinkMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (bInputBlink && BlinkCharges > 0)
	{
		BlinkCharges -= 1;
		if (!CL_IsReplaying() && !IsSimulatedMove())
		{
			UGameplayStatics::PlaySoundAtLocation(this, BlinkSound, UpdatedComponent->GetComponentLocation());
		}
		SealMove();
	}
}

void UBlinkMovement::SealMove()
{
	CL_DoNotCombineNextMove();
}
