class UEarlyMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bWantsSprint = false;
	int32 Combo = 0;
};

void UEarlyMovement::BindReplicationData_Implementation()
{
	BindBool(bWantsSprint, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour); // expect: bind-before-super
	Super::BindReplicationData_Implementation();
	BindInt(Combo, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::NearestNeighbour);
}
