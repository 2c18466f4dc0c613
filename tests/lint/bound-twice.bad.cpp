class UTwiceMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float Stamina = 100.f;
	void BindStamina();
};

void UTwiceMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindSinglePrecisionFloat(Stamina, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
	BindStamina();
}

void UTwiceMovement::BindStamina()
{
	BindCompressedSinglePrecisionFloat(Stamina, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear); // expect: bound-twice
}
