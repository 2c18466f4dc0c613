// A build switch and a setting around bindings.
class USwitchMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float Debug = 0.f;
	bool bUseStance = false;
	uint8 Stance = 0;
};

void USwitchMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
#if UE_SERVER
	BindSinglePrecisionFloat(Debug, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear); // expect: binding-under-condition
#endif
	switch (GetNetMode())
	{
	case NM_Client:
		BindByte(Stance, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::NearestNeighbour); // expect: binding-under-condition
		break;
	default:
		break;
	}
}
