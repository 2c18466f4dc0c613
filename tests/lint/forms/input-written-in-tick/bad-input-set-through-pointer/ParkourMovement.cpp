#include "ParkourMovement.h"
#include "ParkourInputSet.h"

void UParkourMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	Inputs->RegisterWith(this);
	BindBool(bOnWall, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::PeriodicAndOnChange_Output, EGMC_InterpolationFunction::NearestNeighbour);
}

void UParkourMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (Inputs->bWantsWallRun && IsAirborne())
	{
		bOnWall = true;
		// Consumed in the tick: a replay of this move sees no press.
		Inputs->bWantsWallRun = false; // expect: input-written-in-tick
	}
}
