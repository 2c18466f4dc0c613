// Bindings in a loop over a fixed list, and after a null check of the component's own
// member that holds on every machine.
class UListMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float Slots[4];
};

void UListMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	for (int32 i = 0; i < 4; ++i)
	{
		BindSinglePrecisionFloat(Slots[i], EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
	}
}
