#pragma once
#include "GMCOrganicMovementComponent.h"
#include "CrouchMovement.generated.h"

USTRUCT()
struct FCrouchInputData
{
	GENERATED_BODY()
	bool bCrouchHeld = false;
};

UCLASS()
class UCrouchMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
public:
	virtual void BindReplicationData_Implementation() override;
	virtual void PostPhysicsUpdate_Implementation(float DeltaSeconds) override;

private:
	FCrouchInputData* InputData = nullptr;
	bool bIsCrouched = false;
};
