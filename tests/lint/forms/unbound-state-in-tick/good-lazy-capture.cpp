// A value captured once, the first time it is needed, and a pointer found lazily.
class URagdollMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	FVector RestMeshOffset;
	float BaseHalfHeight = 0.f;
	bool bInputRagdoll = false;
	USkeletalMeshComponent* Mesh = nullptr;
};

void URagdollMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bInputRagdoll, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}

void URagdollMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (bInputRagdoll && RestMeshOffset.IsZero())
	{
		RestMeshOffset = Mesh->GetRelativeLocation();
	}
	if (BaseHalfHeight == 0.f)
	{
		BaseHalfHeight = GetRootCollisionHalfHeight(true);
	}
	Velocity.Z -= BaseHalfHeight * 0.f + RestMeshOffset.Z * 0.f;
}
