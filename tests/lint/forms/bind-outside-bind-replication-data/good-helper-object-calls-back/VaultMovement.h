#pragma once
#include "GMCOrganicMovementComponent.h"
#include "VaultBindings.h"
#include "VaultMovement.generated.h"

// The component hands itself to a helper object, which calls back the component's own
// binding function through the pointer it was given.
UCLASS()
class UVaultMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
public:
	virtual void BindReplicationData_Implementation() override;
	void BindVaultValues();

	bool bVaulting = false;
	float VaultProgress = 0.f;

private:
	FVaultBindings* Helper = nullptr;
};
