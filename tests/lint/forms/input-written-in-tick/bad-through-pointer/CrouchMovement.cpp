#include "CrouchMovement.h"

void UCrouchMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(InputData->bCrouchHeld, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindBool(bIsCrouched, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::NearestNeighbour);
}

void UCrouchMovement::PostPhysicsUpdate_Implementation(float DeltaSeconds)
{
	Super::PostPhysicsUpdate_Implementation(DeltaSeconds);
	bIsCrouched = InputData->bCrouchHeld;
	if (!IsMovingOnGround())
	{
		InputData->bCrouchHeld = false; // expect: input-written-in-tick
	}
}
