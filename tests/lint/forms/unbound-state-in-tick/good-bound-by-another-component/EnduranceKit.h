#pragma once
#include "Components/ActorComponent.h"
#include "GMCMovementUtilityComponent.h"
#include "EnduranceKit.generated.h"

UCLASS()
class UEnduranceKit : public UActorComponent
{
	GENERATED_BODY()
public:
	UPROPERTY()
	UGMC_MovementUtilityCmp* Mover;

	double Elapsed = 0.0;

	void BindEverything();
	void GenPredictionTick(float DeltaTime);
};
