// Set in every branch of an if / else-if / else ladder before it is read: not carried.
class ULadderMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float GaitBlend = 0.f;
	float Accel = 0.f;
};

void ULadderMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	const float Speed = Velocity.Size2D();
	if (Speed > 600.f)
	{
		GaitBlend = 2.f + (Speed - 600.f) / 300.f;
	}
	else if (Speed > 200.f)
	{
		if (IsMovingOnGround())
		{
			GaitBlend = 1.f + (Speed - 200.f) / 400.f;
		}
		else
		{
			GaitBlend = 1.f;
		}
	}
	else
	{
		GaitBlend = Speed / 200.f;
	}
	Accel = 1000.f * GaitBlend;
	GaitBlend = FMath::Min(GaitBlend, 3.f);
}
