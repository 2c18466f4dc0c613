#include "OverdriveMover.h"
// RIGHT: Heat is not in this header but is declared and bound by the grand-base UCoreMover.
void UOverdriveMover::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (bOverdriveInput && Heat < 1.f)
	{
		Heat = FMath::Min(1.f, Heat + DeltaSeconds * 0.5f);
		AddImpulse(UpdatedComponent->GetForwardVector() * 500.f * DeltaSeconds);
	}
	else
	{
		Heat = FMath::Max(0.f, Heat - DeltaSeconds * 0.25f);
	}
}
