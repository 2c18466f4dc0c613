// TickComponent samples the pawn's velocity once a frame (in a helper it calls) and the move
// reads that sample to judge a landing: the value is whatever this machine's last frame left,
// not something the move computes, so the server and a replay read another value.
class ULandingMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	FVector FrameVelocity = FVector::ZeroVector;
	float LandingImpact = 0.f;
	bool bWasFalling = false;
	UPROPERTY() TObjectPtr<USkeletalMeshComponent> Mesh = nullptr;
};

void ULandingMovement::TickComponent(float DeltaTime, ELevelTick TickType, FActorComponentTickFunction* ThisTickFunction)
{
	Super::TickComponent(DeltaTime, TickType, ThisTickFunction);
	SampleFrame();
}

void ULandingMovement::SampleFrame()
{
	FrameVelocity = GetLinearVelocity_GMC();
	Mesh = GetOwner()->FindComponentByClass<USkeletalMeshComponent>();
}

void ULandingMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindSinglePrecisionFloat(LandingImpact, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::TargetValue);
	BindBool(bWasFalling, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}

void ULandingMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (bWasFalling && IsMovingOnGround())
	{
		LandingImpact = -FrameVelocity.Z; // expect: frame-delta-in-tick
	}
	bWasFalling = IsAirborne();
}
