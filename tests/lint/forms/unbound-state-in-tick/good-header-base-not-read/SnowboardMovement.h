#pragma once
// Derives from a project base whose header is not among the files: a name the .cpp assigns
// that this header lacks may be the base's member, bound in the base's BindReplicationData,
// so the lint does not take it for an unbound member of this class.
#include "BoardMovementBase.h"
#include "SnowboardMovement.generated.h"

UCLASS()
class USnowboardMovement : public UBoardMovementBase
{
	GENERATED_BODY()
public:
	virtual void MovementUpdate_Implementation(float DeltaSeconds) override;
};
