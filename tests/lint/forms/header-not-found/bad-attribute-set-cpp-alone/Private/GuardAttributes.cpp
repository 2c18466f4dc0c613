// An attribute set with its functions only: its header is not read either, and not needed:
// its bindings join the component's table.
#include "GuardAttributes.h"

void UGuardAttributes::BindAttributes(UGMC_OrganicMovementCmp* MovementCmp)
{
	MovementCmp->BindCompressedSinglePrecisionFloat(Guard, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
	for (auto& Pair : Modifiers)
	{
		MovementCmp->BindCompressedSinglePrecisionFloat(Pair.Value, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
	}
}

void UGuardAttributes::ResetGuard()
{
	Guard = 100.f;
}
