// One struct holds an input and outputs; the tick writes only the outputs.
USTRUCT()
struct FClimbState
{
	GENERATED_BODY()
	bool bWantsClimb = false;
	float ClimbSpeed = 0.f;
	FVector WallNormal;
};

class UClimbMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	FClimbState Climb;
};

void UClimbMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(Climb.bWantsClimb, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindSinglePrecisionFloat(Climb.ClimbSpeed, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
	BindCompressedVector(Climb.WallNormal, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
}

void UClimbMovement::PhysicsCustom_Implementation(float DeltaSeconds)
{
	Super::PhysicsCustom_Implementation(DeltaSeconds);
	Climb.ClimbSpeed = Climb.bWantsClimb ? 200.f : 0.f;
	Climb.WallNormal = FVector::ForwardVector;
	Climb.WallNormal.Z = 0.f;
}
