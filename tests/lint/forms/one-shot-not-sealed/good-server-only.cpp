// A respawn the server alone decides and announces: the owner never runs the branch, so no
// combined re-run fires it again; the spawn point's random pick is the server's alone too.
class URespawnMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bInputRespawn = false;
	bool bRespawnPending = false;
	FVector RespawnPoint;
	UFUNCTION(Client, Reliable)
	void ClientRespawnAt(const FVector& Point);
	void PickRespawnPoint();
};

void URespawnMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bInputRespawn, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindBool(bRespawnPending, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindCompressedVector(RespawnPoint, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
}

void URespawnMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (bInputRespawn && !bRespawnPending && GetOwnerRole() == ROLE_Authority)
	{
		bRespawnPending = true;
		PickRespawnPoint();
		ClientRespawnAt(RespawnPoint);
	}
}

void URespawnMovement::PickRespawnPoint()
{
	RespawnPoint = FVector(FMath::RandRange(-1000.f, 1000.f), 0.f, 0.f);
}
