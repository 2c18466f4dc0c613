// Values the proxies read are simulated; a None value is read only on the owner's path.
class UCapeMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bCapeOut = false;
	float CapeSpeed = 0.f;
	float OwnerOnly = 0.f;
	void SetCape(bool bOut, float Speed);
};

void UCapeMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bCapeOut, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::PeriodicAndOnChange_Output, EGMC_InterpolationFunction::NearestNeighbour);
	BindSinglePrecisionFloat(CapeSpeed, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
	BindSinglePrecisionFloat(OwnerOnly, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}

void UCapeMovement::MovementUpdateSimulated_Implementation(float DeltaSeconds)
{
	Super::MovementUpdateSimulated_Implementation(DeltaSeconds);
	SetCape(bCapeOut, CapeSpeed);
}

void UCapeMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	OwnerOnly += DeltaSeconds;
}
