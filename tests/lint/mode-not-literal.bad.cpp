class UModeMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	int32 Level = 0;
	EGMC_CombineMode LevelCombine = EGMC_CombineMode::Default;
};

void UModeMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindInt(Level, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, LevelCombine, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::NearestNeighbour); // expect: mode-not-literal
}
