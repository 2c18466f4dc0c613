#include "JetMover.h"
void UJetMover::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	Kit = GetOwner()->FindComponentByClass<UFuelKit>();
	if (Kit)
	{
		Kit->Mover = this;
		Kit->BindAll();
	}
}
void UJetMover::GenPredictionTick_Implementation(float DeltaTime)
{
	Super::GenPredictionTick_Implementation(DeltaTime);
	if (Kit) Kit->GenPredictionTick(DeltaTime);
	if (IsAirborne() && Fuel > 0.f)
	{
		Fuel = FMath::Max(0.f, Fuel - DeltaTime * 10.f); // expect: unbound-state-in-tick
		AddImpulse(FVector(0.f, 0.f, 800.f * DeltaTime));
	}
}
