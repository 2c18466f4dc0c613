// A component written for movescope's tests: a sprint with stamina on top of GMC's organic
// movement component. GMC numbers its bindings per type after the organic component's own.
#pragma once

#include "CoreMinimal.h"
#include "Components/GMCOrganicMovementComponent.h"
#include "SprintMovementCmp.generated.h"

UCLASS(ClassGroup = (Custom), meta = (BlueprintSpawnableComponent))
class MYGAME_API USprintMovementCmp : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()

public:
	virtual void BindReplicationData_Implementation() override;
	virtual void MovementUpdate_Implementation(float DeltaSeconds) override;

	UPROPERTY(BlueprintReadWrite)
	bool bWantsToSprint = false;

	UPROPERTY(BlueprintReadOnly)
	float Stamina = 100.f;

	UPROPERTY(EditDefaultsOnly)
	float SprintSpeed = 900.f;
};
