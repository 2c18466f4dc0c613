// Work before Super that binds nothing.
class ULocalsMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float Lean = 0.f;
};

void ULocalsMovement::BindReplicationData_Implementation()
{
	const EGMC_PredictionMode Mode = EGMC_PredictionMode::ServerAuth_Output_ClientValidated;
	Lean = 0.f;
	Super::BindReplicationData_Implementation();
	BindSinglePrecisionFloat(Lean, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
}
