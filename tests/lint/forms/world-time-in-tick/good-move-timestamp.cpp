// The move's own time, and a clock read kept to the owner's live move for a cosmetic.
class UTimedMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float Bob = 0.f;
	double LastFootstep = 0.0;
};

void UTimedMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindSinglePrecisionFloat(Bob, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
}

void UTimedMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	Bob = FMath::Sin(GetMoveTimestamp() * 2.0);
	if (!CL_IsReplaying() && !IsSimulatedMove())
	{
		LastFootstep = GetWorld()->GetTimeSeconds();
	}
}
