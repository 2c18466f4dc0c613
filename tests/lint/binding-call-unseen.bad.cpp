class UMyAbilityComponent : public UActorComponent
{
	GENERATED_BODY()
	UGMC_OrganicMovementCmp* MovementComponent = nullptr;
	int32 ActiveAbility = 0;
	void BindReplicationData();
};

void UMyAbilityComponent::BindReplicationData()
{
	MovementComponent->BindInt(ActiveAbility, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::NearestNeighbour); // expect: binding-call-unseen
}
