// Bound values compared with settings and constants: no copy, no transition.
class UVitalsMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float Health = 100.f;
	float LowHealthThreshold = 25.f;
	uint8 Stance = 0;
	void SetLowHealthLook(bool bLow);
};

void UVitalsMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindSinglePrecisionFloat(Health, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
	BindByte(Stance, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::NearestNeighbour);
}

void UVitalsMovement::OnSyncDataApplied_Implementation(const FGMC_PawnState& State, EGMC_NetContext Context)
{
	Super::OnSyncDataApplied_Implementation(State, Context);
	SetLowHealthLook(Health < LowHealthThreshold);
	if (Stance == 2)
	{
		SetLowHealthLook(false);
	}
}
