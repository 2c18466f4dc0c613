#pragma once
#include "GMCOrganicMovementComponent.h"
#include "StrideMovement.generated.h"

class UStrideAttributeSet;

UCLASS()
class STRIDE_API UStrideMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
public:
	virtual void BindReplicationData_Implementation() override;

	UPROPERTY()
	TObjectPtr<UStrideAttributeSet> MyAttributes;
};
