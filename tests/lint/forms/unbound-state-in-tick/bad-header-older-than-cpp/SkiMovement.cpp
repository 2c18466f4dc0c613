#include "SkiMovement.h"

void USkiMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bCarveInput, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}

void USkiMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (bCarveInput && !bEdgeSet)
	{
		bEdgeSet = true; // expect: unbound-state-in-tick
		CarveTime = 0.f; // expect: unbound-state-in-tick
	}
	else if (!bCarveInput)
	{
		bEdgeSet = false;
	}
	if (bEdgeSet)
	{
		CarveTime += DeltaSeconds;
	}
	const float Turn = bEdgeSet ? FMath::Min(CarveTime, 1.f) : 0.f;
	AddInputVector(GetPendingInputVector().RotateAngleAxis(Turn * 30.f, FVector::UpVector));
}
