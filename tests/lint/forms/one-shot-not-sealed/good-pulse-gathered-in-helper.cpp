// RIGHT: the dash input is gathered in PreLocalMoveExecution (through a helper) as a one-frame
// pulse: CombineIfUnchanged starts a new move where it rises and where it falls, so the move
// that dashes is sealed.
class UBlinkCmp : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bBlinkPressed = false;
	bool bBlinkInput = false;
	int32 BlinkCharges = 3;
	FOnBlink OnBlink;
	void GatherBlink();
};

void UBlinkCmp::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bBlinkInput, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindInt(BlinkCharges, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}

void UBlinkCmp::GatherBlink()
{
	bBlinkInput = bBlinkPressed;
	bBlinkPressed = false;
}

void UBlinkCmp::PreLocalMoveExecution_Implementation(const FGMC_Move& Move)
{
	Super::PreLocalMoveExecution_Implementation(Move);
	GatherBlink();
}

void UBlinkCmp::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (bBlinkInput && BlinkCharges > 0)
	{
		--BlinkCharges;
		OnBlink.Broadcast();
	}
}
