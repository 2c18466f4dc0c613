class UDashMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bInputDash = false;
	bool bInputJump = false;
	FVector2D InputAim;
};

void UDashMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	// "AlwaysCombine for responsive dashes"
	BindBool(bInputDash, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour); // expect: input-not-combine-if-unchanged
	BindBool(bInputJump, EGMC_PredictionMode::ClientAuth_Input, {}, EGMC_SimulationMode::None, {}); // expect: input-not-combine-if-unchanged
	BindCompressedVector2D(InputAim, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
}
