#include "StatsComponent.h"

// Called by the movement component in another module; the class's own helper forwards.
void UStatsComponent::BindAttributes()
{
	BindFloat(Health); // expect: binding-call-unseen
	BindFloat(Mana);
}

void UStatsComponent::BindFloat(float& Value)
{
	MovementComponent->BindSinglePrecisionFloat(Value, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
}
