#pragma once
#include "Components/ActorComponent.h"
#include "StatsComponent.generated.h"

UCLASS()
class UStatsComponent : public UActorComponent
{
	GENERATED_BODY()
public:
	void BindAttributes();

private:
	void BindFloat(float& Value);
	UGMC_OrganicMovementCmp* MovementComponent = nullptr;
	float Health = 100.f;
	float Mana = 50.f;
};
