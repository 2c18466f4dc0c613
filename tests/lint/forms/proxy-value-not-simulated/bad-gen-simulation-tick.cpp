// GenSimulationTick and a helper it calls read values bound SimulationMode::None.
class UBannerMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	uint8 TeamIndex = 0;
	bool bCarryingFlag = false;
	void ShowBanner(bool bShow);
	void UpdateTeamColour();
};

void UBannerMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindByte(TeamIndex, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindBool(bCarryingFlag, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}

void UBannerMovement::GenSimulationTick_Implementation(float DeltaTime)
{
	Super::GenSimulationTick_Implementation(DeltaTime);
	ShowBanner(bCarryingFlag); // expect: proxy-value-not-simulated
	UpdateTeamColour();
}

void UBannerMovement::UpdateTeamColour()
{
	const uint8 Index = TeamIndex; // expect: proxy-value-not-simulated
}
