#pragma once
#include "GMCOrganicMovementComponent.h"
#include "FuelKit.h"
#include "JetMover.generated.h"
// WRONG: the mover keeps its OWN Fuel (a reserve tank), separate from the kit's bound Fuel;
// its own Fuel is carried across moves and bound by nobody.
UCLASS()
class UJetMover : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
public:
	virtual void BindReplicationData_Implementation() override;
	virtual void GenPredictionTick_Implementation(float DeltaTime) override;
protected:
	UPROPERTY() UFuelKit* Kit;
	float Fuel = 20.f;
};
