// The ability component's binding function, called last from the movement component's
// BindReplicationData in the same files.
class UPerkComponent : public UActorComponent
{
	GENERATED_BODY()
	float PerkCharge = 0.f;
	UGMC_OrganicMovementCmp* Movement = nullptr;
	void BindPerks();
};

class UPerkMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	UPerkComponent* Perks = nullptr;
};

void UPerkComponent::BindPerks()
{
	Movement->BindSinglePrecisionFloat(PerkCharge, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
}

void UPerkMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	Perks->BindPerks();
}
