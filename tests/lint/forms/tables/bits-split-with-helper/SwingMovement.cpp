#include "SwingMovement.h"

void USwingMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindRope(this);
}

void USwingMovement::PrePhysicsUpdate_Implementation(float DeltaSeconds)
{
	Super::PrePhysicsUpdate_Implementation(DeltaSeconds);
	const double Arc = FMath::RadiansToDegrees(FMath::Acos(FVector::DotProduct(RopeAxis, FVector::UpVector)));
	SwingArc = Arc;
}
