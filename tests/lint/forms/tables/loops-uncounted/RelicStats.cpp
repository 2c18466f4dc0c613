#include "RelicMovement.h"

void URelicStats::BindStats(URelicMovement* Owner)
{
	Owner->BindSinglePrecisionFloat(Resolve, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear); // shown: URelicStats::Resolve (via Stats)
	for (TPair<FName, float>& Entry : Values)
	{
		Owner->BindSinglePrecisionFloat(Entry.Value, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear); // loop
	}
}
