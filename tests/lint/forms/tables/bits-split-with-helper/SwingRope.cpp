// The binding helper and the input gathering, in a file of their own.
#include "SwingMovement.h"

void USwingMovement::BindRope(UGMC_MovementUtilityCmp* Target)
{
	Target->BindCompressedVector(RopeAnchor, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear); // bits: 60 // scale: magnitude written
	Target->BindCompressedVector(RopeAxis, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear); // bits: 30 // scale: unit written
	Target->BindCompressedVector2D(SwingInput, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear); // bits: 22 // scale: unit default // shown: SwingInput
	Target->BindCompressedDoublePrecisionFloat(SwingArc, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear); // bits: 22 // scale: angle written
}

void USwingMovement::AimRope()
{
	FHitResult Hit;
	RopeAnchor = Hit.Location;
	RopeAxis = (RopeAnchor - GetActorLocation()).GetSafeNormal();
}
