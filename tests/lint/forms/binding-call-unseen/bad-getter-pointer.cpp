class UStaminaAbilityComponent : public UActorComponent
{
	GENERATED_BODY()
	float Stamina = 0.f;
	UGMC_OrganicMovementCmp* GetMovement() const;
	void RegisterWithMovement();
};

void UStaminaAbilityComponent::RegisterWithMovement()
{
	GetMovement()->BindSinglePrecisionFloat(Stamina, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear); // expect: binding-call-unseen
}
