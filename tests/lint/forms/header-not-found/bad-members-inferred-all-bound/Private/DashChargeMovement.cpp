// The look-alike, linted alone with its header nowhere: the charge is bound, and the tick's
// other names are locals, parameters and GMC's own members; only the note is expected.
#include "Movement/DashChargeMovement.h"

void UDashChargeMovement::BindReplicationData_Implementation() // expect: header-not-found
{
	Super::BindReplicationData_Implementation();
	BindBool(bHoldCharge, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindSinglePrecisionFloat(ChargeSeconds, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
}

void UDashChargeMovement::GenPredictionTick_Implementation(float DeltaTime)
{
	Super::GenPredictionTick_Implementation(DeltaTime);
	float Boost = 800.f;
	if (bHoldCharge)
	{
		ChargeSeconds += DeltaTime;
	}
	else if (ChargeSeconds > 0.5f)
	{
		Boost = Boost * ChargeSeconds;
		Velocity += UpdatedComponent->GetForwardVector() * Boost;
		ChargeSeconds = 0.f;
	}
}
