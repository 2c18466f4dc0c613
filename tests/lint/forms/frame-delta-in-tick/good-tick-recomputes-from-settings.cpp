// RIGHT: TickComponent recomputes a value every frame, but only from two settings: it is the same
// on every frame and every machine, so the move reads the same value live, on the server and in
// a replay.
class UTrotCmp : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float BaseTrotSpeed = 400.f;
	float TrotMultiplier = 1.5f;
	float TrotSpeed = 600.f;
	bool bTrotInput = false;
};

void UTrotCmp::TickComponent(float DeltaTime, ELevelTick TickType, FActorComponentTickFunction* ThisTickFunction)
{
	TrotSpeed = BaseTrotSpeed * TrotMultiplier;
	Super::TickComponent(DeltaTime, TickType, ThisTickFunction);
}

void UTrotCmp::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bTrotInput, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}

void UTrotCmp::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (bTrotInput)
	{
		AddImpulse(UpdatedComponent->GetForwardVector() * TrotSpeed * DeltaSeconds);
	}
}
