class UJumpMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bInputJump = false;
	bool bJumped = false;
};

void UJumpMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bInputJump, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindBool(bJumped, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::NearestNeighbour);
}

void UJumpMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (bInputJump && IsMovingOnGround())
	{
		Velocity.Z = 600.f;
		bInputJump = false; // expect: input-written-in-tick
	}
}
