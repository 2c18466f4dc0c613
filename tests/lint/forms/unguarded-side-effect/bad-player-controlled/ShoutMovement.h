#pragma once
#include "GMCOrganicMovementComponent.h"
#include "ShoutMovement.generated.h"

UCLASS()
class UShoutMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
public:
	virtual void BindReplicationData_Implementation() override;
	virtual void PhysicsCustom_Implementation(float DeltaSeconds) override;

protected:
	UFUNCTION(NetMulticast, Unreliable)
	void MulticastShout();

	void Shout();

	bool bInputShout = false;
	int32 Shouts = 0;
};
