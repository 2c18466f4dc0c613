// State the server alone keeps, under guards written several ways.
class UPatrolMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float ThinkTimer = 0.f;
	int32 PatrolIndex = 0;
	float StuckSeconds = 0.f;
};

void UPatrolMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (GetNetMode() < NM_Client)
	{
		ThinkTimer -= DeltaSeconds;
		if (ThinkTimer <= 0.f)
		{
			PatrolIndex = (PatrolIndex + 1) % 4;
			ThinkTimer = 2.f;
		}
	}
	if (!IsLocallyControlledServerPawn())
	{
		return;
	}
	StuckSeconds = Velocity.IsNearlyZero() ? StuckSeconds + DeltaSeconds : 0.f;
}
