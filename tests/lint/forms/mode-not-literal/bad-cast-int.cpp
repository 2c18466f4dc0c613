class UCastModeMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	int32 Level = 0;
};

void UCastModeMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindInt(Level, static_cast<EGMC_PredictionMode>(2), EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::NearestNeighbour); // expect: mode-not-literal
}
