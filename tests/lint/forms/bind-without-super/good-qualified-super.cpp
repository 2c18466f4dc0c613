// Super spelled through the parent's name.
class UQualifiedMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float Grip = 0.f;
};

void UQualifiedMovement::BindReplicationData_Implementation()
{
	UGMC_OrganicMovementCmp::BindReplicationData_Implementation();
	BindSinglePrecisionFloat(Grip, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
}
