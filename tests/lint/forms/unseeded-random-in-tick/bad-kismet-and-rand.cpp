class UWobbleMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float Wobble = 0.f;
};

void UWobbleMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindSinglePrecisionFloat(Wobble, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
}

void UWobbleMovement::PostMovementUpdate_Implementation(float DeltaSeconds)
{
	Super::PostMovementUpdate_Implementation(DeltaSeconds);
	Wobble = UKismetMathLibrary::RandomFloatInRange(-1.f, 1.f); // expect: unseeded-random-in-tick
	if (rand() % 2 == 0) // expect: unseeded-random-in-tick
	{
		Wobble = -Wobble;
	}
}
