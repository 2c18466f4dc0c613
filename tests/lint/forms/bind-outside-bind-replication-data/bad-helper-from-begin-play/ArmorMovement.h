#pragma once
#include "GMCOrganicMovementComponent.h"
#include "ArmorMovement.generated.h"

UCLASS()
class UArmorMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
public:
	virtual void BindReplicationData_Implementation() override;
	virtual void BeginPlay() override;

private:
	void BindArmor(float& Value);
	float Armor = 0.f;
};
