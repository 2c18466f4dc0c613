#pragma once
#include "GMCOrganicMovementComponent.h"
#include "EnduranceKit.h"
#include "TrekMover.generated.h"

// A movement component that binds a helper component's clock through a pointer and runs the
// helper's tick in its own: the helper's write of its clock is a write of a bound value.
UCLASS()
class UTrekMover : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
public:
	virtual void BindReplicationData_Implementation() override;
	virtual void GenPredictionTick_Implementation(float DeltaTime) override;
protected:
	UPROPERTY()
	UEnduranceKit* Kit;
};
