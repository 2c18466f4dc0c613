class UDashFxMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	int32 DashCount = 0;
	int32 ShownDashCount = 0;
	bool bSprinting = false;
	int32 Stance = 0;
	int32 DesiredStance = 0;
	void PlayDashEffect();
};

void UDashFxMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindInt(DashCount, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::NearestNeighbour);
	BindInt(DesiredStance, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::NearestNeighbour);
	BindInt(Stance, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindBool(bSprinting, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::NearestNeighbour);
}

void UDashFxMovement::MovementUpdateSimulated_Implementation(float DeltaSeconds)
{
	Super::MovementUpdateSimulated_Implementation(DeltaSeconds);
	// Stance is bound None, but the proxy derives it from DesiredStance, which arrives.
	Stance = DesiredStance;
	if (Stance > 1) { PlayDashEffect(); }
	if (DashCount != ShownDashCount)
	{
		ShownDashCount = DashCount;
		PlayDashEffect();
	}
}

class UDashAnimInstance : public UAnimInstance
{
	GENERATED_BODY()
	UDashFxMovement* Movement = nullptr;
	bool bAnimSprinting = false;
	virtual void NativeUpdateAnimation(float DeltaSeconds) override;
};

void UDashAnimInstance::NativeUpdateAnimation(float DeltaSeconds)
{
	if (Movement)
	{
		bAnimSprinting = Movement->bSprinting;
	}
}
