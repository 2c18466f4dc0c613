// The bits of two-decimal values come from their type and what the class writes to them;
// a name decides only when nothing written tells.
class UHikeMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	FVector OrientationIntent = FVector::ZeroVector;
	FVector PredictedInputAcceleration = FVector::ZeroVector;
	float TurnInput = 0.f;
	FVector MoveDirectionInput = FVector::ZeroVector;
	FVector StickInput = FVector::ZeroVector;
	FVector LaunchVelocity = FVector::ZeroVector;
	float LeanAmount = 0.f;
	FVector FloorNormal = FVector::ZeroVector;
	FVector Heading = FVector::ZeroVector;
	FRotator AimOffset = FRotator::ZeroRotator;
	float DesiredYaw = 0.f;
	float BankAngle = 0.f;
	float BankGoal = 0.f;
};

void UHikeMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	// Written from GetSafeNormal: a unit direction, though its name says nothing of one.
	BindCompressedVector(OrientationIntent, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear); // bits: 30 // scale: unit written
	// "Input" in the name, but an acceleration: a magnitude.
	BindCompressedVector(PredictedInputAcceleration, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear); // bits: 60 // scale: magnitude written
	// An input float holding an angle: 180 degrees, not a stick's 1.
	BindCompressedSinglePrecisionFloat(TurnInput, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear); // bits: 22 // scale: angle written
	// Nothing written here (Blueprint fills it): the name is the last resort.
	BindCompressedVector(MoveDirectionInput, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear); // bits: 30 // scale: unit name
	// Named like a stick, written from the velocity: what is written wins.
	BindCompressedVector(StickInput, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear); // bits: 60 // scale: magnitude written
	BindCompressedVector(LaunchVelocity, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear); // bits: 60 // scale: magnitude written
	// An output float holding an angle.
	BindCompressedSinglePrecisionFloat(LeanAmount, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear); // bits: 22 // scale: angle written
	BindCompressedVector(FloorNormal, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear); // bits: 30 // scale: unit written
	// Written from a velocity, then normalized in place: a unit direction.
	BindCompressedVector(Heading, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear); // bits: 30 // scale: unit written
	// A rotator is angles whatever is written to it.
	// Eased towards a goal whose writes tell nothing: its own name in the easing is no write
	// site, so the name decides, and says so.
	BindCompressedSinglePrecisionFloat(BankAngle, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear); // bits: 22 // scale: angle name
	BindCompressedRotator(AimOffset, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear); // bits: 54 // scale: angle type
}

void UHikeMovement::PreLocalMoveExecution_Implementation(const FGMC_Move& LocalMove)
{
	Super::PreLocalMoveExecution_Implementation(LocalMove);
	const FVector Facing = GetControlRotation().Vector();
	OrientationIntent = Facing.GetSafeNormal2D();
	PredictedInputAcceleration = GetInputAcceleration();
	TurnInput = FMath::FindDeltaAngleDegrees(GetActorRotation().Yaw, DesiredYaw);
	StickInput = GetVelocity();
}

void UHikeMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	LaunchVelocity = Velocity;
	LeanAmount = FMath::FindDeltaAngleDegrees(AimOffset.Yaw, TurnInput);
	FloorNormal = FVector::UpVector;
	if (CurrentFloor.bBlockingHit)
	{
		FloorNormal = CurrentFloor.HitResult.ImpactNormal;
	}
	Heading = Velocity;
	Heading.Normalize();
	AimOffset = FRotator(0.f, LeanAmount, 0.f);
	BankGoal = LeanAmount * 0.5f;
	BankAngle = FMath::FInterpTo(BankAngle, BankGoal, DeltaSeconds, 4.f);
}
