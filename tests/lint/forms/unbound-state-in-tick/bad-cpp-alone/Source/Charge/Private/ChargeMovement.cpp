// Linted alone: its header is found through its #include in the module's Public folder.
#include "Movement/ChargeMovement.h"

void UChargeMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bHoldCharge, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}

void UChargeMovement::GenPredictionTick_Implementation(float DeltaTime)
{
	Super::GenPredictionTick_Implementation(DeltaTime);
	if (bHoldCharge)
	{
		ChargeSeconds += DeltaTime; // expect: unbound-state-in-tick
	}
	else if (ChargeSeconds > 0.5f)
	{
		Velocity += UpdatedComponent->GetForwardVector() * ChargeSeconds * 800.f;
		ChargeSeconds = 0.f;
	}
}
