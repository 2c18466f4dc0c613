// The header's name differs from the .cpp's and is not in these folders.
#include "Components/WallRunMovementCmp.h"

void UWallRunMovementCmp::PhysicsCustom_Implementation(float DeltaSeconds) // expect: header-not-found
{
	Super::PhysicsCustom_Implementation(DeltaSeconds);
	WallTime = WallTime + DeltaSeconds;
}
