// Bound when the component registers: before or after the layout, on whichever machine.
class URegisterMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float Poise = 0.f;
};

void URegisterMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
}

void URegisterMovement::OnRegister()
{
	Super::OnRegister();
	BindSinglePrecisionFloat(Poise, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear); // expect: bind-outside-bind-replication-data
}
