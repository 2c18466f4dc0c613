#include "Movement/FloatMovement.h"

void UFloatMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindSinglePrecisionFloat(FloatHeight, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
}

void UFloatMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	FloatHeight = FMath::FInterpTo(FloatHeight, 80.f, DeltaSeconds, 2.f);
}
