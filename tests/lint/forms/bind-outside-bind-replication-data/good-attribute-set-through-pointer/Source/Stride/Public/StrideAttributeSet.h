#pragma once
#include "StrideAttributeSet.generated.h"

class UGMC_MovementUtilityCmp;

USTRUCT()
struct FStrideAttribute
{
	GENERATED_BODY()
	float Value = 0.f;
	float Base = 0.f;
};

UCLASS()
class STRIDE_API UStrideAttributeSet : public UObject
{
	GENERATED_BODY()
public:
	void BindAll(UGMC_MovementUtilityCmp* Comp);

private:
	void BindOne(UGMC_MovementUtilityCmp* Comp, FStrideAttribute& Attribute);

	FStrideAttribute Stamina;
	FStrideAttribute Poise;
	TArray<FStrideAttribute> Extra;
	bool bExhausted = false;
};
