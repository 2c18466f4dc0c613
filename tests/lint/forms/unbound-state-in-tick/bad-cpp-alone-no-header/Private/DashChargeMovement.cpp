// Linted alone, its header nowhere: the members are what the class's functions assign.
// ChargeSeconds is typed by its reset (`= 0.f`); bHoldCharge is bound; Velocity is GMC's own.
#include "Movement/DashChargeMovement.h"

void UDashChargeMovement::BindReplicationData_Implementation() // expect: header-not-found
{
	Super::BindReplicationData_Implementation();
	BindBool(bHoldCharge, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}

void UDashChargeMovement::GenPredictionTick_Implementation(float DeltaTime)
{
	Super::GenPredictionTick_Implementation(DeltaTime);
	const float Boost = 800.f;
	if (bHoldCharge)
	{
		ChargeSeconds += DeltaTime; // expect: unbound-state-in-tick
	}
	else if (ChargeSeconds > 0.5f)
	{
		Velocity += UpdatedComponent->GetForwardVector() * ChargeSeconds * Boost;
		ChargeSeconds = 0.f;
	}
}
