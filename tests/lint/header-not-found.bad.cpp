// A component's .cpp linted without its header, which is not where its #include says.
#include "Movement/HoverMovementHeaderNotShipped.h"

void UHoverMovement::BindReplicationData_Implementation() // expect: header-not-found
{
	Super::BindReplicationData_Implementation();
	BindSinglePrecisionFloat(HoverHeight, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
}

void UHoverMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	HoverHeight = FMath::FInterpTo(HoverHeight, 120.f, DeltaSeconds, 4.f);
}
