class UPulseMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bInputInteract = false;
	uint8 InputEmote = 0;
};

void UPulseMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bInputInteract, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::AlwaysCombineOverwrite, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour); // expect: input-not-combine-if-unchanged
	BindByte( // expect: input-not-combine-if-unchanged
		InputEmote,
		EGMC_PredictionMode::ClientAuth_Input,
		EGMC_CombineMode::NeverCombine,
		EGMC_SimulationMode::None,
		EGMC_InterpolationFunction::NearestNeighbour);
}
