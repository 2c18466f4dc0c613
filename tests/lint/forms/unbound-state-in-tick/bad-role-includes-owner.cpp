// A turn-in-place state machine behind a role test that includes the predicting client.
UENUM()
enum class ETurnPhase : uint8 { Idle, Turning, Settling };

class UTurnInPlaceMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	ETurnPhase TurnPhase = ETurnPhase::Idle;
	float AimYawDelta = 0.f;
	FRotator FacingRotation;
};

void UTurnInPlaceMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindSinglePrecisionFloat(AimYawDelta, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindCompressedRotator(FacingRotation, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
}

void UTurnInPlaceMovement::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	if (GetLocalRole() == ROLE_Authority || GetLocalRole() == ROLE_AutonomousProxy)
	{
		if (TurnPhase == ETurnPhase::Idle && FMath::Abs(AimYawDelta) > 90.f)
		{
			TurnPhase = ETurnPhase::Turning; // expect: unbound-state-in-tick
		}
		else if (TurnPhase == ETurnPhase::Turning)
		{
			FacingRotation.Yaw += FMath::Sign(AimYawDelta) * 180.f * DeltaSeconds;
			TurnPhase = ETurnPhase::Settling;
		}
	}
}
