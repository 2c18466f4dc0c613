#pragma once
// An older version of the class's header: the .cpp below uses members this header does not
// declare yet (the edge of the ski, a carve timer), added when the .cpp changed.
#include "GMCOrganicMovementComponent.h"
#include "SkiMovement.generated.h"

UCLASS()
class USkiMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
public:
	virtual void BindReplicationData_Implementation() override;
	virtual void MovementUpdate_Implementation(float DeltaSeconds) override;
protected:
	bool bCarveInput = false;
};
