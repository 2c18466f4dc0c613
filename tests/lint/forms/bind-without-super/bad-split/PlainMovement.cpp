#include "PlainMovement.h"

void UPlainMovement::BindReplicationData_Implementation() // expect: bind-without-super
{
	BindBool(bInputWalk, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}
