// Modes left out or written `{}` are GMC's enumerator 0, which the lint knows.
class UBracesMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	int32 Level = 0;
	float Charge = 0.f;
};

void UBracesMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindInt(Level, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, {}, EGMC_SimulationMode::Periodic_Output, {});
	BindSinglePrecisionFloat(Charge, EGMC_PredictionMode::ServerAuth_Output_ClientValidated);
}
