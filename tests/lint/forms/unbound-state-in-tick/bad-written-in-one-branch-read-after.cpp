// Written in one branch, read where that branch may not have run: after the `if`, in its
// `else`, and in another case of a switch. Each read can see what an earlier move left.
class UHookCmp : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	uint8 HookState = 0;
	float RopeLeft = 0.f;
	float SwingLeft = 0.f;
	float ReelLeft = 0.f;
};

void UHookCmp::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindByte(HookState, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}

void UHookCmp::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (HookState == 1)
	{
		RopeLeft = GetLinearVelocity_GMC().Size(); // expect: unbound-state-in-tick
	}
	if (RopeLeft < 10.f) { HookState = 0; }
	if (HookState == 2)
	{
		SwingLeft = GetLinearVelocity_GMC().Z; // expect: unbound-state-in-tick
	}
	else if (SwingLeft > 0.f)
	{
		HookState = 3;
	}
	switch (HookState)
	{
	case 3:
		ReelLeft = GetLinearVelocity_GMC().X; // expect: unbound-state-in-tick
		break;
	case 4:
		if (ReelLeft < 1.f) { HookState = 0; }
		break;
	}
}
