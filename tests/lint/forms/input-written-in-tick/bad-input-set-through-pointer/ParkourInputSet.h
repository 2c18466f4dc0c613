#pragma once
#include "ParkourInputSet.generated.h"

class UGMC_OrganicMovementCmp;

// The player's parkour input, bound by the set itself for the component that owns it.
UCLASS()
class UParkourInputSet : public UObject
{
	GENERATED_BODY()
public:
	void RegisterWith(UGMC_OrganicMovementCmp* Movement);

	bool bWantsWallRun = false;
	FVector2D LookAxis = FVector2D::ZeroVector;
};
