// Super is called, but of another function.
class UWrongSuperMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float Grip = 0.f;
};

void UWrongSuperMovement::BindReplicationData_Implementation() // expect: bind-without-super
{
	Super::BeginPlay();
	BindSinglePrecisionFloat(Grip, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
}
