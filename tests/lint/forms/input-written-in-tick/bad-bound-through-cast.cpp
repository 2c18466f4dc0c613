// An enum input bound through a cast, then overridden by the tick.
UENUM()
enum class EDesiredGait : uint8 { Walk, Run, Sprint };

class UGaitMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	EDesiredGait DesiredGait = EDesiredGait::Run;
	float GaitBlend = 0.f;
};

void UGaitMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindByte(reinterpret_cast<uint8&>(DesiredGait), EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindSinglePrecisionFloat(GaitBlend, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
}

void UGaitMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (Velocity.Size2D() < 10.f)
	{
		DesiredGait = EDesiredGait::Walk; // expect: input-written-in-tick
	}
	GaitBlend = FMath::FInterpTo(GaitBlend, DesiredGait == EDesiredGait::Sprint ? 1.f : 0.f, DeltaSeconds, 5.f);
}
