class UAppDeltaMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float Heat = 0.f;
};

void UAppDeltaMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindSinglePrecisionFloat(Heat, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
}

void UAppDeltaMovement::PhysicsCustom_Implementation(float DeltaSeconds)
{
	Super::PhysicsCustom_Implementation(DeltaSeconds);
	Heat += FApp::GetDeltaTime() * 3.f; // expect: frame-delta-in-tick
	Heat -= GetWorld()->DeltaTimeSeconds; // expect: frame-delta-in-tick
}
