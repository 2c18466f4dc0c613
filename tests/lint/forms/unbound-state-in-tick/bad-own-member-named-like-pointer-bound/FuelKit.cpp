#include "FuelKit.h"
void UFuelKit::BindAll()
{
	Mover->BindSinglePrecisionFloat(Fuel, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
}
void UFuelKit::GenPredictionTick(float DeltaTime)
{
	Fuel = FMath::Max(0.f, Fuel - DeltaTime);
}
