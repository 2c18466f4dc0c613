// A ladder without a final else keeps the old value when no branch runs.
class UPartialLadderMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float GaitBlend = 0.f;
	float Accel = 0.f;
};

void UPartialLadderMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	const float Speed = Velocity.Size2D();
	Accel = 1000.f * GaitBlend;
	if (Speed > 600.f)
	{
		GaitBlend = 2.f; // expect: unbound-state-in-tick
	}
	else if (Speed > 200.f)
	{
		GaitBlend = 1.f;
	}
}
