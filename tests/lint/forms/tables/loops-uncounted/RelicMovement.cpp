#include "RelicMovement.h"

void URelicMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bEmpowered, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::PeriodicAndOnChange_Output, EGMC_InterpolationFunction::NearestNeighbour); // shown: bEmpowered
	for (int32 i = 0; i < Charges.Num(); ++i)
	{
		BindInt(Charges[i], EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::NearestNeighbour); // loop // bits: 32
	}
	Stats->BindStats(this);
}
