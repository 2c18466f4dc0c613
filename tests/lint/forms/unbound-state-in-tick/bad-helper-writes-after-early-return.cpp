// WRONG: the helper called in the branch writes LedgeHeight only after an early return that
// can skip it; the read after the call then sees a carried value.
class UMantleCmp : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bMantleInput = false;
	float LedgeHeight = 0.f;
	void MeasureLedge();
};

void UMantleCmp::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bMantleInput, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}

void UMantleCmp::MeasureLedge()
{
	FHitResult Hit;
	const FVector Start = GetActorLocation_GMC() + UpdatedComponent->GetForwardVector() * 50.f + FVector(0.f, 0.f, 150.f);
	if (!GetWorld()->LineTraceSingleByChannel(Hit, Start, Start - FVector(0.f, 0.f, 200.f), ECC_Visibility))
	{
		return;
	}
	LedgeHeight = Hit.ImpactPoint.Z - GetActorLocation_GMC().Z; // expect: unbound-state-in-tick
}

void UMantleCmp::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (bMantleInput)
	{
		MeasureLedge();
		if (LedgeHeight > 50.f && LedgeHeight < 120.f)
		{
			AddImpulse(FVector(0.f, 0.f, LedgeHeight * 10.f));
		}
	}
}
