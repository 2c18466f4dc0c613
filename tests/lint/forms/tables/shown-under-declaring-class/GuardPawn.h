#pragma once

UCLASS()
class ABasePawn : public AGMC_Pawn
{
	GENERATED_BODY()
public:
	float Health = 100.f;
};

UCLASS()
class AGuardPawn : public ABasePawn
{
	GENERATED_BODY()
public:
	FVector PatrolTarget = FVector::ZeroVector;
};
