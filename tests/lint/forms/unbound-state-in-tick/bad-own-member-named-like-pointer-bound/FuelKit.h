#pragma once
#include "Components/ActorComponent.h"
#include "GMCMovementUtilityComponent.h"
#include "FuelKit.generated.h"
UCLASS()
class UFuelKit : public UActorComponent
{
	GENERATED_BODY()
public:
	UPROPERTY() UGMC_MovementUtilityCmp* Mover;
	float Fuel = 100.f;
	void BindAll();
	void GenPredictionTick(float DeltaTime);
};
