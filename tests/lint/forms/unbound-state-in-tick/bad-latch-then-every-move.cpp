// A spring seeded once behind a latch, then advanced on every move: the latch exempts only its
// own write, not the spring's update each move.
class USpringArmMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bSpringSeeded = false;
	float SpringYaw = 0.f;
	float SpringRate = 0.f;
	bool bInputLook = false;
};

void USpringArmMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bInputLook, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}

void USpringArmMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (!bSpringSeeded)
	{
		SpringYaw = UpdatedComponent->GetComponentRotation().Yaw;
		bSpringSeeded = true;
	}
	const float Target = bInputLook ? 90.f : 0.f;
	SpringRate += (Target - SpringYaw) * DeltaSeconds; // expect: unbound-state-in-tick
	SpringYaw += SpringRate * DeltaSeconds; // expect: unbound-state-in-tick
}
