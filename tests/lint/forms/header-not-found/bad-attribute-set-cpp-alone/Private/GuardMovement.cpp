// Linted without its header: the pointer's type is not known, but one class in the files
// defines the binding function it calls.
#include "GuardMovement.h"

void UGuardMovement::BindReplicationData_Implementation() // expect: header-not-found
{
	Super::BindReplicationData_Implementation();
	GuardSet->BindAttributes(this);
	BindBool(bGuarding, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::PeriodicAndOnChange_Output, EGMC_InterpolationFunction::NearestNeighbour);
}

void UGuardMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	bGuarding = GuardSet->Guard > 0.f;
}
