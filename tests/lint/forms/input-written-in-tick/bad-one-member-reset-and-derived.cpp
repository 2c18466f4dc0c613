// One input written twice on the prediction path: cleared under a condition in one function,
// computed in another. It is a value the tick derives, and both findings must say so; the
// dodge flag, only ever cleared after use, is a pulse.
class UBoostMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float BoostInput = 0.f;
	bool bWantsDodge = false;
	float Stamina = 1.f;
	void DrainBoost(float Dt);
};

void UBoostMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindSinglePrecisionFloat(BoostInput, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindBool(bWantsDodge, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindSinglePrecisionFloat(Stamina, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
}

void UBoostMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (Stamina <= 0.f)
	{
		BoostInput = 0.f; // expect: input-written-in-tick
	}
	DrainBoost(DeltaSeconds);
	if (bWantsDodge)
	{
		Stamina -= 0.25f;
		bWantsDodge = false; // expect: input-written-in-tick
	}
}

void UBoostMovement::DrainBoost(float Dt)
{
	BoostInput = FMath::Max(BoostInput - Dt * 0.5f, 0.f); // expect: input-written-in-tick
	Stamina = FMath::Max(Stamina - BoostInput * Dt, 0.f);
}
