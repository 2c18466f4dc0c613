#include "GuardPawn.h"

// A component binding members of its pawn through a pointer: each is shown under the
// class that declares it.
class UGuardMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	AGuardPawn* OwnerPawn = nullptr;
	bool bAlert = false;
};

void UGuardMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindSinglePrecisionFloat(OwnerPawn->Health, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear); // shown: ABasePawn::Health (via OwnerPawn)
	BindCompressedVector(OwnerPawn->PatrolTarget, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear); // shown: AGuardPawn::PatrolTarget (via OwnerPawn) // bits: 60
	BindBool(bAlert, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::PeriodicAndOnChange_Output, EGMC_InterpolationFunction::NearestNeighbour); // shown: bAlert
}

// An ability component binding its own member through the movement component: the member
// is the ability component's, not the movement component's.
class UFocusAbilityComponent : public UActorComponent
{
	GENERATED_BODY()
	UGMC_OrganicMovementCmp* MovementComponent = nullptr;
	float Focus = 0.f;
	bool bFocusing = false;
	void BindFocus();
};

void UFocusAbilityComponent::BindFocus()
{
	MovementComponent->BindCompressedSinglePrecisionFloat(Focus, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear); // shown: Focus
	MovementComponent->BindBool(MovementComponent->bWantsFocus, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour); // shown: UGMC_OrganicMovementCmp::bWantsFocus (via MovementComponent)
}
