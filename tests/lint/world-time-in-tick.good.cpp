class UClockMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	double DashEndTime = 0.0;
	bool bInputDash = false;
	double LastDashSound = 0.0;
};

void UClockMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bInputDash, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindDoublePrecisionFloat(DashEndTime, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}

void UClockMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	const double Now = GetMoveTimestamp();
	if (bInputDash && Now > DashEndTime)
	{
		DashEndTime = Now + 0.5;
		CL_DoNotCombineNextMove();
	}
}

// Once per frame, not replayed: the clock is fine here.
void UClockMovement::GenAncillaryTick_Implementation(float DeltaTime, bool bLocalMove, bool bCombinedClientMove)
{
	LastDashSound = GetWorld()->GetTimeSeconds();
}
