class UClockMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	double DashEndTime = 0.0;
	bool bInputDash = false;
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
	const double Now = GetWorld()->GetTimeSeconds(); // expect: world-time-in-tick
	if (bInputDash && Now > DashEndTime)
	{
		DashEndTime = Now + 0.5;
		CL_DoNotCombineNextMove();
	}
	const double Wall = FPlatformTime::Seconds(); // expect: world-time-in-tick
	if (GetWorld()->TimeSeconds > Wall) {} // expect: world-time-in-tick
}
