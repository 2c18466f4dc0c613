#pragma once
#include "GMCOrganicMovementComponent.h"
#include "ScatterMovement.generated.h"

UCLASS()
class UScatterMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
public:
	virtual void BindReplicationData_Implementation() override;
	virtual void MovementUpdate_Implementation(float DeltaSeconds) override;

private:
	FVector Scatter() ;
	FRandomStream ScatterStream;
	FVector Drift;
};
