// Outputs may combine as they like; the input is CombineIfUnchanged on several lines.
class UOutputsMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bInputRoll = false;
	float RollTime = 0.f;
};

void UOutputsMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(
		bInputRoll,
		EGMC_PredictionMode::ClientAuth_Input,
		EGMC_CombineMode::CombineIfUnchanged,
		EGMC_SimulationMode::None,
		EGMC_InterpolationFunction::NearestNeighbour);
	BindSinglePrecisionFloat(RollTime, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
}
