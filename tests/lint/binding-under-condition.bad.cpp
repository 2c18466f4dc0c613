class UBranchyMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	int32 ServerScore = 0;
	float Stamina = 0.f;
	bool bDebugValues = false;
	UPROPERTY(EditDefaultsOnly)
	bool bUseStamina = true;
	void BindDebug();
};

void UBranchyMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	if (GetOwnerRole() == ROLE_Authority)
	{
		BindInt(ServerScore, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::NearestNeighbour); // expect: binding-under-condition
	}
	if (bUseStamina)
	{
		BindSinglePrecisionFloat(Stamina, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear); // expect: binding-under-condition
	}
	if (IsNetMode(NM_Client)) BindDebug();
}

void UBranchyMovement::BindDebug()
{
	BindBool(bDebugValues, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour); // expect: binding-under-condition
}
