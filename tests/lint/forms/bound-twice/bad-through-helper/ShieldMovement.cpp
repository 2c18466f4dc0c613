#include "ShieldMovement.h"

void UShieldMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindFloatOutput(ShieldCharge);
	BindSinglePrecisionFloat(ShieldCharge, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear); // expect: bound-twice
}

void UShieldMovement::BindFloatOutput(float& Value)
{
	BindSinglePrecisionFloat(Value, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
}
