#include "KitMovement.h"

// The same component, vendored twice: each copy binds its members once.
void UKitMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindSinglePrecisionFloat(Stamina, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
	BindBool(bInputSprint, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}
