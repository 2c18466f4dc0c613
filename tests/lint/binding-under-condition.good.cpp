class UStraightMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	int32 ServerScore = 0;
	float Stamina = 0.f;
	FVector Aim[2];
};

void UStraightMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindInt(ServerScore, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::NearestNeighbour);
	BindSinglePrecisionFloat(Stamina, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
	// A fixed loop makes the same bindings on every machine.
	for (int32 i = 0; i < 2; ++i)
	{
		BindCompressedVector(Aim[i], EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
	}
}
