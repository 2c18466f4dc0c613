#include "TrekMover.h"

void UTrekMover::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	Kit = GetOwner()->FindComponentByClass<UEnduranceKit>();
	if (Kit)
	{
		Kit->Mover = this;
		Kit->BindEverything();
	}
}

void UTrekMover::GenPredictionTick_Implementation(float DeltaTime)
{
	Super::GenPredictionTick_Implementation(DeltaTime);
	if (Kit) Kit->GenPredictionTick(DeltaTime);
}
