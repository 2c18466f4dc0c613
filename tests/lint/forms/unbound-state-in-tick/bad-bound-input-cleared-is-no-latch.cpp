// `if (bWantsJump) { Jump(); bWantsJump = false; }` looks like a set-once latch, but the flag is
// a bound input: GMC restores it for every execution, so the branch runs again in a replay, and
// the unbound charges it spends carry the newest count into the replay.
class UBounceCmp : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bWantsJump = false;
	bool bOnGround = false;
	int32 AirJumps = 1;
	int32 AirJumpsLeft = 0;
};

void UBounceCmp::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bWantsJump, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindBool(bOnGround, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}

void UBounceCmp::GenPredictionTick_Implementation(float DeltaTime)
{
	Super::GenPredictionTick_Implementation(DeltaTime);
	if (bOnGround)
	{
		AirJumpsLeft = AirJumps; // expect: unbound-state-in-tick
	}
	if (bWantsJump)
	{
		SpendJump();
		bWantsJump = false; // expect: input-written-in-tick
	}
}

void UBounceCmp::SpendJump()
{
	if (!bOnGround && AirJumpsLeft > 0)
	{
		AirJumpsLeft -= 1;
	}
}
