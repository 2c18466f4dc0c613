#include "PulseMovement.h"

void UPulseClockMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindSinglePrecisionFloat(Bob, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
}

void UPulseClockMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	Bob = FMath::Sin(PulsePhase());
}

float UPulseClockMovement::PulsePhase() const
{
	return FPlatformTime::Seconds() * 2.0; // expect: world-time-in-tick
}
