#include "ParkourInputSet.h"

void UParkourInputSet::RegisterWith(UGMC_OrganicMovementCmp* Movement)
{
	Movement->BindBool(bWantsWallRun, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	Movement->BindCompressedVector2D(LookAxis, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
}
