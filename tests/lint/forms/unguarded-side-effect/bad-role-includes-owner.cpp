// Role tests that include the predicting client guard nothing from its replays.
class UTrapMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bPlaceTrap = false;
	float TrapCooldown = 0.f;
	TSubclassOf<AActor> TrapClass;
};

void UTrapMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bPlaceTrap, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindSinglePrecisionFloat(TrapCooldown, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
}

void UTrapMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (!bPlaceTrap || TrapCooldown > 0.f)
	{
		TrapCooldown = FMath::Max(0.f, TrapCooldown - DeltaSeconds);
		return;
	}
	TrapCooldown = 5.f;
	CL_DoNotCombineNextMove();
	if (GetOwnerRole() == ROLE_Authority || GetOwnerRole() == ROLE_AutonomousProxy)
	{
		GetWorld()->SpawnActor<AActor>(TrapClass, GetActorLocation(), FRotator::ZeroRotator); // expect: unguarded-side-effect
	}
	if (!IsSimulatedProxy())
	{
		UGameplayStatics::SpawnSoundAtLocation(this, nullptr, GetActorLocation()); // expect: unguarded-side-effect
	}
}
