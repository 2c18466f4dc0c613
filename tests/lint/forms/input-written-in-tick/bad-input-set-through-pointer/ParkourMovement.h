#pragma once
#include "GMCOrganicMovementComponent.h"
#include "ParkourMovement.generated.h"

class UParkourInputSet;

UCLASS()
class UParkourMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
public:
	virtual void BindReplicationData_Implementation() override;
	virtual void MovementUpdate_Implementation(float DeltaSeconds) override;

	UPROPERTY()
	TObjectPtr<UParkourInputSet> Inputs;

	bool bOnWall = false;
};
