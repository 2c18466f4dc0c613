// A helper that binds, called before Super.
class UEarlyMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bInputProne = false;
	void BindStance();
};

void UEarlyMovement::BindReplicationData_Implementation()
{
	BindStance();
	Super::BindReplicationData_Implementation();
}

void UEarlyMovement::BindStance()
{
	BindBool(bInputProne, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour); // expect: bind-before-super
}
