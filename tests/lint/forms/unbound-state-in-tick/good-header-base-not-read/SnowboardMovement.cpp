#include "SnowboardMovement.h"

void USnowboardMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (bBoardInput && !bEdgeSet)
	{
		bEdgeSet = true;
		CarveTime = 0.f;
	}
	else if (!bBoardInput)
	{
		bEdgeSet = false;
	}
	if (bEdgeSet)
	{
		CarveTime += DeltaSeconds;
	}
}
