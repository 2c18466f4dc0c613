#include "ScatterMovement.h"

void UScatterMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindCompressedVector(Drift, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
}

void UScatterMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	Drift += Scatter() * DeltaSeconds;
}

FVector UScatterMovement::Scatter()
{
	return ScatterStream.GetUnitVector(); // expect: unseeded-random-in-tick
}
