#include "ShoutMovement.h"

void UShoutMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bInputShout, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindInt(Shouts, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}

void UShoutMovement::PhysicsCustom_Implementation(float DeltaSeconds)
{
	Super::PhysicsCustom_Implementation(DeltaSeconds);
	// IsPlayerControlled() is true for the owner's replayed moves as well.
	if (bInputShout && PawnOwner->IsPlayerControlled())
	{
		Shout();
	}
}

void UShoutMovement::Shout()
{
	Shouts = Shouts + 1;
	CL_DoNotCombineNextMove();
	MulticastShout(); // expect: unguarded-side-effect
}
