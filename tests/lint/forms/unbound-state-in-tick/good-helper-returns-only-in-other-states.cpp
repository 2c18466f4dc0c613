// A helper called while a state machine is turning returns early only in states the call site
// rules out, or on a simulated proxy (no move runs there): wherever the move runs it, the helper
// writes the remaining yaw before the caller reads it.
UENUM()
enum class ESpinState : uint8 { Ready, Starting, Running, Done };

class USpinCmp : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	ESpinState SpinState = ESpinState::Ready;
	float YawToGo = 0.f;
	FVector SpinTarget = FVector::ForwardVector;
};

void USpinCmp::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindByte(reinterpret_cast<uint8&>(SpinState), EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindCompressedVector(SpinTarget, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}

void USpinCmp::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (SpinState == ESpinState::Starting || SpinState == ESpinState::Running)
	{
		TurnSome(DeltaSeconds);
		if (FMath::Abs(YawToGo) < 2.f)
		{
			SpinState = ESpinState::Done;
		}
	}
}

void USpinCmp::TurnSome(float DeltaSeconds)
{
	if (SpinState == ESpinState::Ready || SpinState == ESpinState::Done) return;
	if (GetOwnerRole() == ROLE_SimulatedProxy)
	{
		return;
	}
	YawToGo = FMath::FindDeltaAngleDegrees(UpdatedComponent->GetComponentRotation().Yaw, SpinTarget.Rotation().Yaw);
}
