#pragma once
#include "CoreMover.h"
#include "ProjMover.generated.h"
UCLASS()
class UProjMover : public UCoreMover
{
	GENERATED_BODY()
};
