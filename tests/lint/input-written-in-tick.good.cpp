class UJumpMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bInputJump = false;
	bool bJumpConsumed = false;
};

void UJumpMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bInputJump, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindBool(bJumpConsumed, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}

// Input is gathered outside the prediction path.
void UJumpMovement::PreLocalMoveExecution_Implementation(const FGMC_Move& LocalMove)
{
	Super::PreLocalMoveExecution_Implementation(LocalMove);
	bInputJump = bJumpKeyHeld;
}

void UJumpMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (!bInputJump)
	{
		bJumpConsumed = false;
	}
	else if (!bJumpConsumed && IsMovingOnGround())
	{
		Velocity.Z = 600.f;
		bJumpConsumed = true;
		CL_DoNotCombineNextMove();
	}
}
