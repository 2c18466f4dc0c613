// WRONG: the shot runs on the pulse OR on a buffered flag; when the buffered shot fires on a
// frame without the pulse, the next frame's input is unchanged (false), GMC combines it and the
// re-run fires again. The pulse seals only the frames it is raised on.
class UBufferedFireCmp : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bFirePressed = false;
	bool bFireInput = false;
	bool bFireBuffered = false;
	float Refire = 0.f;
	int32 ShotsFired = 0;
};

void UBufferedFireCmp::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bFireInput, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindBool(bFireBuffered, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindSinglePrecisionFloat(Refire, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
	BindInt(ShotsFired, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}

void UBufferedFireCmp::PreLocalMoveExecution_Implementation(const FGMC_Move& Move)
{
	Super::PreLocalMoveExecution_Implementation(Move);
	bFireInput = bFirePressed;
	bFirePressed = false;
}

void UBufferedFireCmp::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	Refire = FMath::Max(0.f, Refire - DeltaSeconds);
	if ((bFireInput || bFireBuffered) && Refire <= 0.f)
	{
		Refire = 0.3f; // expect: one-shot-not-sealed
		++ShotsFired;
		bFireBuffered = false;
	}
	else if (bFireInput)
	{
		bFireBuffered = true;
	}
}
