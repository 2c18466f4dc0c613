// The same kind of flag, written as one `if` per edge in a helper the move calls, with the
// tolerance reached through the settings member directly and the value to restore saved in the
// same branch that widens it.
#include "ZiplineMovement.h"

void UZiplineMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bOnLine, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}

void UZiplineMovement::PhysicsCustom_Implementation(float DeltaSeconds)
{
	Super::PhysicsCustom_Implementation(DeltaSeconds);
	KeepToleranceForRide();
}

void UZiplineMovement::KeepToleranceForRide()
{
	if (bOnLine)
	{
		if (!bRideTolerance)
		{
			RestoreRotationTolerance = ReplicationSettings.DefaultErrorTolerances.ActorRotation;
			ReplicationSettings.DefaultErrorTolerances.ActorRotation = 45.f;
			bRideTolerance = true;
		}
	}
	else if (bRideTolerance)
	{
		ReplicationSettings.DefaultErrorTolerances.ActorRotation = RestoreRotationTolerance;
		bRideTolerance = false;
	}
}
