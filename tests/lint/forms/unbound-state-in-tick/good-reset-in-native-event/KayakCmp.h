#pragma once
// A component that drives its own move the way GMC's organic component does: its hooks are
// called through CALL_NATIVE_EVENT_CONDITIONAL(bNoBlueprint, this, Hook, args…), and the hook
// that recomputes a member runs before the step that reads it.
#include "GMCMovementUtilityComponent.h"
#include "KayakCmp.generated.h"

UCLASS()
class UKayakCmp : public UGMC_MovementUtilityCmp
{
	GENERATED_BODY()
protected:
	void GenPredictionTick_Implementation(float DeltaTime) override;
	virtual void PerformMovement(float DeltaSeconds);
	UFUNCTION(BlueprintNativeEvent)
	void PreMovementUpdate(float DeltaSeconds);
	virtual void PreMovementUpdate_Implementation(float DeltaSeconds);
	virtual void PhysicsFloating(float DeltaSeconds);
	void MeasureDraft();
	bool bSkipBlueprintHooks = true;
	float Draft{0.f};
};
