#include "CrossbowMovement.h"

void UCrossbowMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bInputLoose, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindByte(BoltsLeft, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::NearestNeighbour);
}

void UCrossbowMovement::PostMovementUpdate_Implementation(float DeltaSeconds)
{
	Super::PostMovementUpdate_Implementation(DeltaSeconds);
	if (bInputLoose && BoltsLeft > 0)
	{
		LooseBolt();
	}
}

void UCrossbowMovement::LooseBolt()
{
	BoltsLeft--; // expect: one-shot-not-sealed
}
