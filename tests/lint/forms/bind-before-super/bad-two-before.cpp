class UTwoEarlyMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float Lean = 0.f;
	float Tilt = 0.f;
};

void UTwoEarlyMovement::BindReplicationData_Implementation()
{
	BindSinglePrecisionFloat(Lean, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear); // expect: bind-before-super
	BindSinglePrecisionFloat(Tilt, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
	Super::BindReplicationData_Implementation();
}
