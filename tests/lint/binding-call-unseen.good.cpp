class UMyMovementCmp : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	int32 ActiveAbility = 0;
};

static void BindAbilityValues(UMyMovementCmp* Movement, int32& Ability)
{
	Movement->BindInt(Ability, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::NearestNeighbour);
}

void UMyMovementCmp::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	// The ability values bind last.
	BindAbilityValues(this, ActiveAbility);
}
