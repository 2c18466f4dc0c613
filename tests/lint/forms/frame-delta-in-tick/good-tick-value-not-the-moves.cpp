// What TickComponent sets and the move does not depend on: a value the move sets itself
// before reading it, a bound value, a value only shown, a cached pointer.
class UHoverMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float HoverHeight = 0.f;
	float Thrust = 0.f;
	float DisplayedSpeed = 0.f;
	UPROPERTY() TObjectPtr<UPrimitiveComponent> Body = nullptr;
};

void UHoverMovement::TickComponent(float DeltaTime, ELevelTick TickType, FActorComponentTickFunction* ThisTickFunction)
{
	Super::TickComponent(DeltaTime, TickType, ThisTickFunction);
	HoverHeight = GetActorLocation_GMC().Z;
	Thrust = GetLinearVelocity_GMC().Z * 0.5f;
	DisplayedSpeed = GetLinearVelocity_GMC().Size();
	Body = Cast<UPrimitiveComponent>(UpdatedComponent);
}

void UHoverMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindSinglePrecisionFloat(Thrust, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
}

void UHoverMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	HoverHeight = GetActorLocation_GMC().Z;
	const float Lift = HoverHeight < 100.f ? Thrust : 0.f;
	AddImpulse(FVector(0.f, 0.f, Lift * DeltaSeconds));
}
