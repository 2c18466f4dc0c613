// The same cosine, but of an angle the move itself changes: the cache carries the previous
// move's angle into the next move's first read.
class UTiltCmp : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float TiltAngle = 0.f;
	float TiltNormalZ = 1.f;
};

void UTiltCmp::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (GetCurrentFloor().ShapeHit().ImpactNormal.Z < TiltNormalZ)
	{
		AddImpulse(FVector(0.f, 0.f, -100.f * DeltaSeconds));
	}
	TiltAngle = GetLinearVelocity_GMC().Size() * 0.01f;
	TiltNormalZ = FMath::Cos(FMath::DegreesToRadians(TiltAngle)); // expect: unbound-state-in-tick
}
