// The branch that fires the event tests a CombineIfUnchanged input and clears it: the next
// frame's input differs from this move's, so GMC cannot combine that frame into this move (the
// move is sealed, as the source document says of an input that flips as the event happens).
// Only the input cleared in the tick is reported, not the event.
class UBlinkCmp : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bBlinkRequest = false;
	bool bBlinkCharged = false;
	FVector BlinkTarget = FVector::ZeroVector;
	FOnBlinked OnBlinked;
};

void UBlinkCmp::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bBlinkRequest, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindBool(bBlinkCharged, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindCompressedVector(BlinkTarget, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}

void UBlinkCmp::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (bBlinkCharged && bBlinkRequest)
	{
		bBlinkRequest = false; // expect: input-written-in-tick
		bBlinkCharged = false;
		SetActorLocation_GMC(BlinkTarget);
		OnBlinked.Execute();
	}
}
