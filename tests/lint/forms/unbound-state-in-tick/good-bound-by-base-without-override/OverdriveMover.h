#pragma once
#include "ProjMover.h"
#include "OverdriveMover.generated.h"
UCLASS()
class UOverdriveMover : public UProjMover
{
	GENERATED_BODY()
public:
	virtual void MovementUpdate_Implementation(float DeltaSeconds) override;
};
