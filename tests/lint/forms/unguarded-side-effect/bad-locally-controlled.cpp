// A guard that holds in the owner's replays: IsLocallyControlled() is true there too.
class UBlinkMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bWantsBlink = false;
	float BlinkTimer = 0.f;
	UNiagaraSystem* BlinkFx = nullptr;
};

void UBlinkMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bWantsBlink, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindSinglePrecisionFloat(BlinkTimer, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
}

void UBlinkMovement::PostMovementUpdate_Implementation(float DeltaSeconds)
{
	Super::PostMovementUpdate_Implementation(DeltaSeconds);
	if (bWantsBlink && BlinkTimer <= 0.f)
	{
		BlinkTimer = 2.f;
		CL_DoNotCombineNextMove();
		if (PawnOwner->IsLocallyControlled())
		{
			UNiagaraFunctionLibrary::SpawnSystemAtLocation(this, BlinkFx, GetActorLocation()); // expect: unguarded-side-effect
		}
	}
	BlinkTimer = FMath::Max(0.f, BlinkTimer - DeltaSeconds);
}
