class URandomMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float Spread = 0.f;
	FRandomStream Stream;
};

void URandomMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindSinglePrecisionFloat(Spread, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
}

void URandomMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	Spread = GenerateNetRandomNumber(5);
	Stream.Initialize(static_cast<int32>(GetMoveTimestamp() * 1000.0));
	Spread += Stream.FRand();
}
