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
	Spread = FMath::RandRange(0.f, 5.f); // expect: unseeded-random-in-tick
	Spread += Stream.FRand(); // expect: unseeded-random-in-tick
}
