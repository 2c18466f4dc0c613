// Hand-written for movescope's doctor fixtures (tests/gmclog/doctor/). An auto-running hero: it
// always runs forward, sprints while the player holds the sprint key, pays stamina for it and
// builds up a sprint charge that adds a surge on top of the run.
//
// Derives from GMC's movement utility component, which binds nothing itself, so the bindings made
// in BindReplicationData_Implementation (StaminaMovementCmp.cpp) get the first index of each type:
//   Bool[0]                 = bWantsToSprint
//   SinglePrecisionFloat[0] = Stamina
//   SinglePrecisionFloat[1] = SprintCharge
#pragma once

#include "CoreMinimal.h"
#include "Components/GMCMovementUtilityComponent.h"
#include "StaminaMovementCmp.generated.h"

class UParticleSystem;

UCLASS(ClassGroup = (Custom), meta = (BlueprintSpawnableComponent))
class RUNNER_API UStaminaMovementCmp : public UGMC_MovementUtilityCmp
{
	GENERATED_BODY()

public:
	UStaminaMovementCmp();

	virtual void BeginPlay() override;
	virtual void EndPlay(const EEndPlayReason::Type EndPlayReason) override;
	virtual void TickComponent(float DeltaTime, ELevelTick TickType, FActorComponentTickFunction* ThisTickFunction) override;

	virtual void BindReplicationData_Implementation() override;
	virtual void MovementUpdate_Implementation(float DeltaSeconds) override;

	/** Gameplay rule, server only: sprinting on low stamina exhausts the hero. */
	UFUNCTION(BlueprintCallable, Category = "Stamina")
	void ApplyExhaustionPenalty();

	/** Input: set by the player controller while the sprint key is held. */
	UPROPERTY(BlueprintReadWrite, Category = "Stamina")
	bool bWantsToSprint = false;

	UPROPERTY(BlueprintReadOnly, Category = "Stamina")
	float Stamina = 100.f;

	/** 0..1, grows while sprinting; feeds the surge (and the HUD's charge bar). */
	UPROPERTY(BlueprintReadOnly, Category = "Stamina")
	float SprintCharge = 0.f;

	UPROPERTY(EditDefaultsOnly, Category = "Stamina|Movement")
	float WalkSpeed = 600.f;

	UPROPERTY(EditDefaultsOnly, Category = "Stamina|Movement")
	float SprintSpeed = 900.f;

	/** Extra distance per second at full charge, on top of the run speed. */
	UPROPERTY(EditDefaultsOnly, Category = "Stamina|Movement")
	float SurgeSpeed = 400.f;

	UPROPERTY(EditDefaultsOnly, Category = "Stamina")
	float StaminaDrainPerSecond = 10.f;

	UPROPERTY(EditDefaultsOnly, Category = "Stamina")
	float SprintChargePerSecond = 0.5f;

	UPROPERTY(EditDefaultsOnly, Category = "Stamina")
	float SprintChargeDecayPerSecond = 1.f;

	/** Checked by the server's exhaustion timer. */
	UPROPERTY(EditDefaultsOnly, Category = "Stamina|Exhaustion")
	float ExhaustionCheckInterval = 1.f;

	UPROPERTY(EditDefaultsOnly, Category = "Stamina|Exhaustion")
	float ExhaustionThreshold = 50.f;

	/** Cosmetic burst played on the owning client when the charge reaches this value. */
	UPROPERTY(EditDefaultsOnly, Category = "Stamina|FX")
	float SprintFxThreshold = 0.75f;

	UPROPERTY(EditDefaultsOnly, Category = "Stamina|FX")
	TObjectPtr<UParticleSystem> SprintBurstFx;

protected:
	/** Owning client only, every frame from TickComponent: the sprint trail and the charge burst. */
	void OnClientSprintFx(float DeltaTime);

	/** Server only, on a looping timer. */
	void OnExhaustionCheck();

private:
	FTimerHandle ExhaustionTimerHandle;

	/** Local FX state, never replicated. */
	float SprintFxCharge = 0.f;
	bool bSprintFxPlayed = false;
};
