// A blink re-armed by its own timer: the combined re-run starts before the blink and blinks
// again.
class UBlinkStepMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bInputBlink = false;
	double BlinkRecharge = 0.0;
	FVector BlinkOffset;
};

void UBlinkStepMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bInputBlink, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindDoublePrecisionFloat(BlinkRecharge, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
}

void UBlinkStepMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	switch (GetMovementMode())
	{
	case EGMC_MovementMode::Grounded:
		if (bInputBlink && BlinkRecharge <= 0.0)
		{
			BlinkRecharge = 1.5; // expect: one-shot-not-sealed
			SafeMoveUpdatedComponent(BlinkOffset, UpdatedComponent->GetComponentQuat(), true, nullptr);
		}
		break;
	default:
		break;
	}
	BlinkRecharge -= DeltaSeconds;
}
