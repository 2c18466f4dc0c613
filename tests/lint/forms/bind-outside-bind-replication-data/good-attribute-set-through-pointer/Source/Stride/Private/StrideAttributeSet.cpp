#include "StrideAttributeSet.h"
#include "GMCMovementUtilityComponent.h"

void UStrideAttributeSet::BindAll(UGMC_MovementUtilityCmp* Comp)
{
	Comp->BindBool(bExhausted, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::PeriodicAndOnChange_Output, EGMC_InterpolationFunction::NearestNeighbour);
	BindOne(Comp, Stamina);
	BindOne(Comp, Poise);
	for (FStrideAttribute& Attribute : Extra)
	{
		BindOne(Comp, Attribute);
	}
}

void UStrideAttributeSet::BindOne(UGMC_MovementUtilityCmp* Comp, FStrideAttribute& Attribute)
{
	Comp->BindCompressedSinglePrecisionFloat(Attribute.Value, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
}
