// Members the move writes before it reads them inside one branch: inline, through a helper
// called in the branch, and through a helper whose own guard holds wherever moves run (the
// owner, live and replaying, and the server). Each read comes after this move's write.
class UGlideCmp : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	uint8 GlideState = 0;
	bool bGlideDone = false;
	float YawLeft = 0.f;
	float LiftLeft = 0.f;
	float SinkLeft = 0.f;
};

void UGlideCmp::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindByte(GlideState, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindBool(bGlideDone, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
}

void UGlideCmp::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (DeltaSeconds > 0.f)
	{
		YawLeft = FMath::FindDeltaAngleDegrees(UpdatedComponent->GetComponentRotation().Yaw, 90.f);
		if (FMath::Abs(YawLeft) < 5.f) { bGlideDone = true; }
	}
	if (GlideState == 1)
	{
		MeasureLift();
		if (LiftLeft < 1.f) { bGlideDone = true; }
	}
	if (GlideState == 2)
	{
		MeasureSink(false);
		if (SinkLeft < 1.f) { bGlideDone = false; }
	}
}

void UGlideCmp::MeasureLift()
{
	LiftLeft = GetLinearVelocity_GMC().Z;
}

void UGlideCmp::MeasureSink(bool bCosmetic)
{
	if (!IsSmoothedListenServerPawn() || bCosmetic)
	{
		SinkLeft = -GetLinearVelocity_GMC().Z;
	}
}
