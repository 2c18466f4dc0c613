// A cache worked out from a setting alone, kept right by a setter the move calls with the
// setting itself: it holds the same value in every move, so a replay reads what the move read,
// even on a branch (physics simulation) where the setter does not run first.
class USlideCmp : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float SlideAngleLimit = 35.f;
	float SlideNormalZ = 0.8f;
};

void USlideCmp::PreMovementUpdate_Implementation(float DeltaSeconds)
{
	Super::PreMovementUpdate_Implementation(DeltaSeconds);
	SetSlideAngleLimit(SlideAngleLimit);
}

void USlideCmp::SetSlideAngleLimit(float NewLimit)
{
	SlideAngleLimit = FMath::Clamp(NewLimit, 0.f, 90.f);
	SlideNormalZ = FMath::Cos(FMath::DegreesToRadians(SlideAngleLimit));
}

void USlideCmp::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (GetCurrentFloor().ShapeHit().ImpactNormal.Z < SlideNormalZ)
	{
		AddImpulse(FVector(0.f, 0.f, -100.f * DeltaSeconds));
	}
}

void USlideCmp::PhysicsSimulationUpdate_Implementation(float DeltaSeconds)
{
	Super::PhysicsSimulationUpdate_Implementation(DeltaSeconds);
	if (GetCurrentFloor().ShapeHit().ImpactNormal.Z < SlideNormalZ)
	{
		SetActorBase(nullptr);
	}
}
