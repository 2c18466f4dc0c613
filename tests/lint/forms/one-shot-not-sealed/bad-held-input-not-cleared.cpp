// The same event behind an input that is held, not cleared, and bound AlwaysCombine: the next
// frame combines into this move and the re-run fires the event again.
class UDashCmp : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bDashHeld = false;
	bool bDashReady = false;
	FOnDashed OnDashed;
};

void UDashCmp::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bDashHeld, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour); // expect: input-not-combine-if-unchanged
	BindBool(bDashReady, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}

void UDashCmp::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (bDashReady && bDashHeld)
	{
		bDashReady = false; // expect: one-shot-not-sealed
		OnDashed.Execute();
	}
}
