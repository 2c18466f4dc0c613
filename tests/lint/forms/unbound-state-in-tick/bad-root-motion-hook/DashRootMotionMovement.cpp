#include "DashRootMotionMovement.h"

void UDashRootMotionMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindCompressedVector(DashVelocity, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
}

void UDashRootMotionMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	// Read here, written by the root-motion hook later in the move: the next move reads it.
	DashVelocity = Velocity * RootMotionBlend;
}

void UDashRootMotionMovement::PreProcessRootMotion(const FGMC_AnimMontageInstance& MontageInstance, FRootMotionMovementParams& InOutRootMotionParams, float DeltaSeconds)
{
	Super::PreProcessRootMotion(MontageInstance, InOutRootMotionParams, DeltaSeconds);
	RootMotionBlend = FMath::Min(1.f, RootMotionBlend + DeltaSeconds * 4.f); // expect: unbound-state-in-tick
}
