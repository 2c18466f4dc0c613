// A stream seeded from the move's timestamp, and GMC's synchronized numbers.
class USeededMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	FRandomStream Stream;
	FVector Drift;
	float Spread = 0.f;
};

void USeededMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindCompressedVector(Drift, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
	BindSinglePrecisionFloat(Spread, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
}

void USeededMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	Stream.Initialize(static_cast<int32>(GetMoveTimestamp() * 1000.0));
	Drift += Stream.GetUnitVector() * DeltaSeconds;
	Spread = GenerateNetRandomNumber(0.f, 5.f);
}
