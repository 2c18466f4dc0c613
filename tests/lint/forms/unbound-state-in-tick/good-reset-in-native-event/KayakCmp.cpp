#include "KayakCmp.h"

void UKayakCmp::GenPredictionTick_Implementation(float DeltaTime)
{
	Super::GenPredictionTick_Implementation(DeltaTime);
	PerformMovement(DeltaTime);
}

void UKayakCmp::PerformMovement(float DeltaSeconds)
{
	CALL_NATIVE_EVENT_CONDITIONAL(bSkipBlueprintHooks, this, PreMovementUpdate, DeltaSeconds);
	PhysicsFloating(DeltaSeconds);
}

void UKayakCmp::PreMovementUpdate_Implementation(float DeltaSeconds)
{
	MeasureDraft();
}

void UKayakCmp::MeasureDraft()
{
	Draft = GetActorLocation_GMC().Z * -0.5f;
}

void UKayakCmp::PhysicsFloating(float DeltaSeconds)
{
	if (Draft > 0.5f)
	{
		Velocity.Z += 10.f * DeltaSeconds;
	}
}
