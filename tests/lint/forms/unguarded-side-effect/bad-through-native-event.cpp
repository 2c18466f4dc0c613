// A sound played in a hook GMC-style code calls through CALL_NATIVE_EVENT_ALWAYS: it runs on
// every execution of the move like a direct call.
class UHopCmp : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bWantsHop = false;
	USoundBase* HopSound = nullptr;
};

void UHopCmp::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	CALL_NATIVE_EVENT_ALWAYS(this, Hop, bWantsHop, DeltaSeconds);
}

void UHopCmp::Hop_Implementation(bool bWants, float DeltaSeconds)
{
	if (bWants)
	{
		UGameplayStatics::PlaySoundAtLocation(this, HopSound, GetActorLocation_GMC()); // expect: unguarded-side-effect
	}
}
