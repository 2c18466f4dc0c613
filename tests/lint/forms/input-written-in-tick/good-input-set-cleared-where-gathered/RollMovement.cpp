#include "RollMovement.h"

void URollInputs::BindTo(URollMovement* Owner)
{
	if (!IsValid(Owner))
	{
		return;
	}
	Owner->BindBool(bWantsRoll, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	Owner->BindCompressedSinglePrecisionFloat(RollAxis, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
}

void URollMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	if (RollInput)
	{
		RollInput->BindTo(this);
	}
	BindBool(bRolling, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::PeriodicAndOnChange_Output, EGMC_InterpolationFunction::NearestNeighbour);
}

void URollMovement::PreLocalMoveExecution_Implementation(const FGMC_Move& LocalMove)
{
	Super::PreLocalMoveExecution_Implementation(LocalMove);
	// Where input is gathered: the pulse is cleared before the next move is made.
	RollInput->bWantsRoll = false;
}

void URollMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	// The tick reads the input and writes only its own output.
	bRolling = RollInput->bWantsRoll && RollInput->RollAxis != 0.f;
}
