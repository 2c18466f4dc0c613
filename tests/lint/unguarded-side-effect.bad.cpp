class UNoisyMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bInput_Dash = false;
	float DashCooldown = 0.f;
	UFUNCTION(Server, Reliable)
	void ServerReportDash();
	USoundBase* DashSound = nullptr;
};

void UNoisyMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bInput_Dash, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindSinglePrecisionFloat(DashCooldown, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
}

void UNoisyMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (bInput_Dash && DashCooldown <= 0.f)
	{
		DashCooldown = 1.f;
		UGameplayStatics::PlaySoundAtLocation(this, DashSound, GetActorLocation()); // expect: unguarded-side-effect
		ServerReportDash(); // expect: unguarded-side-effect
		GEngine->AddOnScreenDebugMessage(-1, 1.f, FColor::Red, TEXT("dash")); // expect: unguarded-side-effect
		CL_DoNotCombineNextMove();
	}
	DashCooldown = FMath::Max(0.f, DashCooldown - DeltaSeconds);
}
