#pragma once
#include "GMCOrganicMovementComponent.h"
#include "RelicMovement.generated.h"

class URelicStats;

UCLASS()
class URelicMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
public:
	virtual void BindReplicationData_Implementation() override;

	URelicStats* Stats = nullptr;
	TArray<int32> Charges;
	bool bEmpowered = false;
};

UCLASS()
class URelicStats : public UObject
{
	GENERATED_BODY()
public:
	void BindStats(URelicMovement* Owner);
	TMap<FName, float> Values;
	float Resolve = 0.f;
};
