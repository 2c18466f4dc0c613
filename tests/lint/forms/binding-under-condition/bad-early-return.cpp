// An early return on the owner's role before a binding.
class UReturnMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float Heat = 0.f;
};

void UReturnMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	if (!GetOwner()->HasAuthority()) return;
	BindSinglePrecisionFloat(Heat, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear); // expect: binding-under-condition
}
