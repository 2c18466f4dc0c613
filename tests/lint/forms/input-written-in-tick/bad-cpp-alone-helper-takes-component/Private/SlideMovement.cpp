// Linted alone: its header is not in the files. The binding helper is a free function
// handed the component.
#include "Movement/SlideMovement.h"

namespace
{
	void BindSlideInputs(USlideMovement* Comp)
	{
		Comp->BindBool(Comp->bWantsSlide, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	}
}

void USlideMovement::BindReplicationData_Implementation() // expect: header-not-found
{
	Super::BindReplicationData_Implementation();
	BindSlideInputs(this);
}

void USlideMovement::PreLocalMoveExecution_Implementation(const FGMC_Move& LocalMove)
{
	Super::PreLocalMoveExecution_Implementation(LocalMove);
	bWantsSlide = false;
}

void USlideMovement::PhysicsGrounded_Implementation(float DeltaSeconds)
{
	Super::PhysicsGrounded_Implementation(DeltaSeconds);
	if (bWantsSlide)
	{
		SlideTime = 0.f;
		bWantsSlide = false; // expect: input-written-in-tick
	}
}
