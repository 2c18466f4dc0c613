class UTernaryMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float Lean = 0.f;
	bool bSmoothLean = true;
	EGMC_SimulationMode LeanSim = EGMC_SimulationMode::Periodic_Output;
};

void UTernaryMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindSinglePrecisionFloat(Lean, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, LeanSim, bSmoothLean ? EGMC_InterpolationFunction::Linear : EGMC_InterpolationFunction::NearestNeighbour); // expect: mode-not-literal
}
