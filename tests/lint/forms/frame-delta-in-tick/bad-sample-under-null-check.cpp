// WRONG: TickComponent samples every frame; the only condition is a null check of
// UpdatedComponent, which holds on every frame a move can run.
class USkidCmp : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	FVector FrameHeading = FVector::ForwardVector;
	float Skid = 0.f;
};

void USkidCmp::TickComponent(float DeltaTime, ELevelTick TickType, FActorComponentTickFunction* ThisTickFunction)
{
	Super::TickComponent(DeltaTime, TickType, ThisTickFunction);
	if (UpdatedComponent)
	{
		FrameHeading = UpdatedComponent->GetForwardVector();
	}
}

void USkidCmp::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindSinglePrecisionFloat(Skid, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
}

void USkidCmp::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	Skid = 1.f - FVector::DotProduct(GetLinearVelocity_GMC().GetSafeNormal(), FrameHeading); // expect: frame-delta-in-tick
}
