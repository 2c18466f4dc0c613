// A movement component whose throttle is bound NeverCombine: every frame must become a move of
// its own, so the table's bandwidth counts one frame per move at any frame rate.
class UHoverboardMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float Throttle = 0.f;
	bool bBoost = false;
	float Charge = 0.f;
};

void UHoverboardMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bBoost, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindSinglePrecisionFloat(
		Throttle,
		EGMC_PredictionMode::ClientAuth_Input,
		EGMC_CombineMode::NeverCombine,
		EGMC_SimulationMode::None,
		EGMC_InterpolationFunction::NearestNeighbour);
	BindCompressedSinglePrecisionFloat(Charge, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
}
