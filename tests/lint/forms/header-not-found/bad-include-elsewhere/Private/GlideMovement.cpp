#include "GlideMovement.h"
#include "GMCOrganicMovementComponent.h"

void UGlideMovement::MovementUpdate_Implementation(float DeltaSeconds) // expect: header-not-found
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	GlideSeconds += DeltaSeconds;
}
