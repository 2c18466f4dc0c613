#include "SprintMovementCmp.h"

void USprintMovementCmp::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();

	BindBool(
		bWantsToSprint,
		EGMC_PredictionMode::ClientAuth_Input,
		EGMC_CombineMode::CombineIfUnchanged,
		EGMC_SimulationMode::None,
		EGMC_InterpolationFunction::TargetValue
	);
	BindSinglePrecisionFloat(
		Stamina,
		EGMC_PredictionMode::ServerAuth_Output_ServerValidated,
		EGMC_CombineMode::AlwaysCombine,
		EGMC_SimulationMode::None,
		EGMC_InterpolationFunction::TargetValue
	);
	BindCompressedSinglePrecisionFloat(
		SprintSpeed,
		EGMC_PredictionMode::ServerAuth_Output_ClientValidated,
		EGMC_CombineMode::AlwaysCombine,
		EGMC_SimulationMode::None,
		EGMC_InterpolationFunction::TargetValue
	);
}

void USprintMovementCmp::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (bWantsToSprint && Stamina > 0.f)
	{
		Stamina = FMath::Max(0.f, Stamina - 10.f * DeltaSeconds);
		MaxDesiredSpeed = SprintSpeed;
	}
}
