// Inputs set where input is gathered; what the tick derives is a bound output.
class UGatheredMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bInputVault = false;
	bool bVaultRequested = false;
	float VaultProgress = 0.f;
	bool bVaultKeyDown = false;
};

void UGatheredMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bInputVault, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindBool(bVaultRequested, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindSinglePrecisionFloat(VaultProgress, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
}

void UGatheredMovement::PreLocalMoveExecution_Implementation()
{
	Super::PreLocalMoveExecution_Implementation();
	bInputVault = bVaultKeyDown;
}

void UGatheredMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	bVaultRequested = bInputVault && IsMovingOnGround();
	VaultProgress = bVaultRequested ? FMath::Min(1.f, VaultProgress + DeltaSeconds) : 0.f;
}
