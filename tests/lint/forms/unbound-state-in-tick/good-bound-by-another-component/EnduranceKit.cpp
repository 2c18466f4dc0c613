#include "EnduranceKit.h"

void UEnduranceKit::BindEverything()
{
	Mover->BindDoublePrecisionFloat(Elapsed, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::TargetValue);
}

void UEnduranceKit::GenPredictionTick(float DeltaTime)
{
	Elapsed += DeltaTime;
}
