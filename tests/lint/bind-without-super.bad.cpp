class UNoSuperMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bWantsSprint = false;
	virtual void BindReplicationData_Implementation() override;
};

void UNoSuperMovement::BindReplicationData_Implementation() // expect: bind-without-super
{
	BindBool(bWantsSprint, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}
