// The class's own helpers, one named like GMC's, both called from BindReplicationData.
class UHelperMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float Focus = 0.f;
	int32 Combo = 0;
	void BindFocus(float& Value);
	void BindInt(int32& Value, EGMC_PredictionMode Mode);
};

void UHelperMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindFocus(Focus);
	BindInt(Combo, EGMC_PredictionMode::ServerAuth_Output_ClientValidated);
}

void UHelperMovement::BindFocus(float& Value)
{
	BindSinglePrecisionFloat(Value, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
}

void UHelperMovement::BindInt(int32& Value, EGMC_PredictionMode Mode)
{
	Super::BindInt(Value, Mode, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::NearestNeighbour);
}
