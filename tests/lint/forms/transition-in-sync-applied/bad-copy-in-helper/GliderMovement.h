#pragma once
#include "GMCOrganicMovementComponent.h"
#include "GliderMovement.generated.h"

UCLASS()
class UGliderMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
public:
	virtual void BindReplicationData_Implementation() override;
	virtual void OnSyncDataApplied_Implementation(const FGMC_PawnState& State, EGMC_NetContext Context) override;

private:
	void RememberWingState();
	void PlayWingSound();

	uint8 WingState = 0;
	uint8 DisplayedWingState = 0;
};
