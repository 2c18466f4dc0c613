// The shot is sealed, in a helper the branch calls.
class UBowMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bInputRelease = false;
	int32 ArrowsShot = 0;
	float DrawCooldown = 0.f;
};

void UBowMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bInputRelease, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindInt(ArrowsShot, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::NearestNeighbour);
	BindSinglePrecisionFloat(DrawCooldown, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
}

void UBowMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (bInputRelease && DrawCooldown <= 0.f)
	{
		ShootArrow();
	}
	DrawCooldown = FMath::Max(0.f, DrawCooldown - DeltaSeconds);
}

void UBowMovement::ShootArrow()
{
	++ArrowsShot;
	DrawCooldown = 0.8f;
	CL_DoNotCombineNextMove();
}
