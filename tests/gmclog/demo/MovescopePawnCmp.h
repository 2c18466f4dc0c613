// movescope's demo pawn written as a GMC component, binding what movescope's default preset
// binds in the same order, less GMC's built-ins (location, rotation, velocity…: GMC keeps
// those itself and logs them under their own names): importing the logs `movescope run --gmc-log` writes with
// `--component tests/gmclog/demo` names every value (docs/gmc-logs.md).
#pragma once

#include "CoreMinimal.h"
#include "Components/GMCMovementUtilityComponent.h"
#include "MovescopePawnCmp.generated.h"

UCLASS()
class UMovescopePawnCmp : public UGMC_MovementUtilityCmp
{
	GENERATED_BODY()

public:
	virtual void BindReplicationData_Implementation() override;

	FVector2D input_move;
	bool input_dash = false;
	FVector location;
	FRotator rotation;
	FVector velocity;
	float dash_cooldown = 0.f;
	uint8 dash_count = 0;
	float stride = 0.f;
	float move_ramp = 0.f;
	uint8 team = 0;
};
