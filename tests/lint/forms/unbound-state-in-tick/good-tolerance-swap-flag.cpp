// A flag that only remembers whether the component has widened GMC's error tolerances while a
// vault runs: it guards the widening and the restore and nothing else reads it. The tolerances
// are read by the server's comparison, never by the move, so binding the flag changes nothing a
// replay computes. The saved values are captured once and only the restore reads them.
class UVaultMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bVaulting = false;
	bool bLimitsWidened = false;
	bool bLimitsSaved = false;
	float SavedLocationLimit = 0.f;
	float SavedVelocityLimit = 0.f;
	float WideLocationLimit = 120.f;
	float WideVelocityLimit = 400.f;
};

void UVaultMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bVaulting, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}

void UVaultMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	FGMC_DefaultErrorTolerances& Limits = ReplicationSettings.DefaultErrorTolerances;
	if (!bLimitsSaved)
	{
		SavedLocationLimit = Limits.ActorLocation;
		SavedVelocityLimit = Limits.LinearVelocity;
		bLimitsSaved = true;
	}
	if (bVaulting && !bLimitsWidened)
	{
		Limits.ActorLocation = WideLocationLimit;
		Limits.LinearVelocity = WideVelocityLimit;
		bLimitsWidened = true;
		UE_LOG(LogTemp, Verbose, TEXT("limits widened"));
	}
	else if (!bVaulting && bLimitsWidened)
	{
		Limits.ActorLocation = SavedLocationLimit;
		Limits.LinearVelocity = SavedVelocityLimit;
		bLimitsWidened = false;
	}
}
