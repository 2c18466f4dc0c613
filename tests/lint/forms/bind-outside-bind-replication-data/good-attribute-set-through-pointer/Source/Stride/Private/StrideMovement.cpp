#include "StrideMovement.h"
#include "StrideAttributeSet.h"

void UStrideMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	MyAttributes->BindAll(this);
}
