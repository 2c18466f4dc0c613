#include "StaminaMovementCmp.h"

#include "Kismet/GameplayStatics.h"
#include "Particles/ParticleSystem.h"
#include "TimerManager.h"

UStaminaMovementCmp::UStaminaMovementCmp()
{
	PrimaryComponentTick.bCanEverTick = true;
}

void UStaminaMovementCmp::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();

	BindBool(
		bWantsToSprint,
		EGMC_PredictionMode::ClientAuth_Input,
		EGMC_CombineMode::CombineIfUnchanged,
		EGMC_SimulationMode::None,
		EGMC_InterpolationFunction::TargetValue
	);
	BindSinglePrecisionFloat(
		Stamina,
		EGMC_PredictionMode::ServerAuth_Output_ServerValidated,
		EGMC_CombineMode::AlwaysCombine,
		EGMC_SimulationMode::None,
		EGMC_InterpolationFunction::TargetValue
	);
	BindSinglePrecisionFloat(
		SprintCharge,
		EGMC_PredictionMode::ServerAuth_Output_ClientValidated,
		EGMC_CombineMode::AlwaysCombine,
		EGMC_SimulationMode::None,
		EGMC_InterpolationFunction::TargetValue
	);
}

void UStaminaMovementCmp::BeginPlay()
{
	Super::BeginPlay();

	if (GetOwner()->HasAuthority())
	{
		GetWorld()->GetTimerManager().SetTimer(
			ExhaustionTimerHandle, this, &UStaminaMovementCmp::OnExhaustionCheck, ExhaustionCheckInterval, true);
	}
}

void UStaminaMovementCmp::EndPlay(const EEndPlayReason::Type EndPlayReason)
{
	if (UWorld* World = GetWorld())
	{
		World->GetTimerManager().ClearTimer(ExhaustionTimerHandle);
	}
	Super::EndPlay(EndPlayReason);
}

void UStaminaMovementCmp::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);

	const bool bSprinting = bWantsToSprint && Stamina > 0.f;
	if (bSprinting)
	{
		Stamina = FMath::Max(0.f, Stamina - StaminaDrainPerSecond * DeltaSeconds);
		SprintCharge = FMath::Min(1.f, SprintCharge + SprintChargePerSecond * DeltaSeconds);
	}
	else
	{
		SprintCharge = FMath::Max(0.f, SprintCharge - SprintChargeDecayPerSecond * DeltaSeconds);
	}

	// The hero always runs forward; the velocity carries the run speed only.
	const FVector Forward = UpdatedComponent->GetForwardVector();
	Velocity = Forward * (bSprinting ? SprintSpeed : WalkSpeed);

	// The charge adds a surge on top of the run: extra distance, not extra velocity.
	const FVector Delta = (Velocity + Forward * SurgeSpeed * SprintCharge) * DeltaSeconds;
	FHitResult Hit;
	SafeMoveUpdatedComponent(Delta, UpdatedComponent->GetComponentQuat(), true, Hit);
}

void UStaminaMovementCmp::TickComponent(float DeltaTime, ELevelTick TickType, FActorComponentTickFunction* ThisTickFunction)
{
	// GMC executes (and on the client predicts) this frame's move in here.
	Super::TickComponent(DeltaTime, TickType, ThisTickFunction);

	const APawn* Pawn = Cast<APawn>(GetOwner());
	if (Pawn && Pawn->IsLocallyControlled() && !Pawn->HasAuthority())
	{
		OnClientSprintFx(DeltaTime);
	}
}

void UStaminaMovementCmp::OnClientSprintFx(float DeltaTime)
{
	if (!bWantsToSprint)
	{
		SprintFxCharge = 0.f;
		bSprintFxPlayed = false;
		return;
	}

	SprintFxCharge += DeltaTime;
	if (!bSprintFxPlayed && SprintCharge >= SprintFxThreshold)
	{
		bSprintFxPlayed = true;
		if (SprintBurstFx)
		{
			UGameplayStatics::SpawnEmitterAttached(SprintBurstFx, UpdatedComponent);
		}
		// Start the trail over for the next burst.
		SprintCharge = 0.f;
	}
}

void UStaminaMovementCmp::OnExhaustionCheck()
{
	if (bWantsToSprint && Stamina <= ExhaustionThreshold)
	{
		ApplyExhaustionPenalty();
	}
}

void UStaminaMovementCmp::ApplyExhaustionPenalty()
{
	if (GetOwner()->HasAuthority())
	{
		Stamina -= 10.f;
	}
}
