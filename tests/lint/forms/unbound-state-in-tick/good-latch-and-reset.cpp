// Settings captured once behind a latch, and a per-move value recomputed first thing.
class UConfiguredMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bSettingsCaptured = false;
	float SprintSpeedSetting = 0.f;
	float AccelerationSetting = 0.f;
	float SpeedScale = 1.f;
	bool bInputSprint = false;
	UMovementSettings* Settings = nullptr;
};

void UConfiguredMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bInputSprint, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}

void UConfiguredMovement::PreMovementUpdate_Implementation(float DeltaSeconds)
{
	Super::PreMovementUpdate_Implementation(DeltaSeconds);
	if (!bSettingsCaptured)
	{
		CaptureSettings();
	}
	SpeedScale = bInputSprint ? 1.5f : 1.f;
}

void UConfiguredMovement::CaptureSettings()
{
	SprintSpeedSetting = Settings->SprintSpeed;
	AccelerationSetting = Settings->Acceleration;
	if (SprintSpeedSetting <= 0.f)
	{
		GEngine->AddOnScreenDebugMessage(-1, 5.f, FColor::Red, TEXT("sprint speed not set"));
	}
	bSettingsCaptured = true;
}

void UConfiguredMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	MaxDesiredSpeed = SprintSpeedSetting * SpeedScale;
	SpeedScale = FMath::Min(SpeedScale, 2.f);
}
