#pragma once
#include "GMCOrganicMovementComponent.h"
#include "CrossbowMovement.generated.h"

UCLASS()
class UCrossbowMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
public:
	virtual void BindReplicationData_Implementation() override;
	virtual void PostMovementUpdate_Implementation(float DeltaSeconds) override;

private:
	void LooseBolt();

	bool bInputLoose = false;
	uint8 BoltsLeft = 6;
};
