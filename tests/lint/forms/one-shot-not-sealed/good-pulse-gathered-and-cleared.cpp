// The input is gathered as a one-frame pulse where input is gathered (the lint's own advice):
// CombineIfUnchanged starts a new move where it rises and where it falls, so the move that
// fires the event is sealed.
class UWarpCmp : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bWarpPressed = false;
	bool bWarpInput = false;
	bool bWarpArmed = false;
	FOnWarped OnWarped;
};

void UWarpCmp::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bWarpInput, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindBool(bWarpArmed, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}

void UWarpCmp::PreLocalMoveExecution_Implementation(const FGMC_Move& Move)
{
	Super::PreLocalMoveExecution_Implementation(Move);
	bWarpInput = bWarpPressed;
	bWarpPressed = false;
}

void UWarpCmp::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (bWarpArmed && bWarpInput)
	{
		bWarpArmed = false;
		OnWarped.Execute();
	}
}
