// A movement component with a layout of its own, for "Run with this layout": inputs (keys,
// an aim axis, a toggle), outputs of several types (numbers, a vector, names, tags, a counter),
// some simulated for proxies, one client-authoritative.
class UTraversalMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bWantsToSprint = false;
	bool bJumpPressed = false;
	bool bWalkToggle = false;
	FVector2D AimInput;
	float Stamina = 100.f;
	uint8 JumpCount = 0;
	int32 Score = 0;
	FVector LeanOffset;
	FName Stance;
	FGameplayTag MovementTag;
	double ServerClockDrift = 0.0;
	float Heat = 0.f;
	FRotator HeadAim;
};

void UTraversalMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bWantsToSprint, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::PeriodicAndOnChange_Input, EGMC_InterpolationFunction::NearestNeighbour);
	BindBool(bJumpPressed, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindBool(bWalkToggle, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindCompressedVector2D(AimInput, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindCompressedSinglePrecisionFloat(Stamina, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
	BindByte(JumpCount, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::NearestNeighbour);
	BindInt(Score, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindCompressedVector(LeanOffset, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
	BindName(Stance, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::NearestNeighbour);
	BindGameplayTag(MovementTag, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindDoublePrecisionFloat(ServerClockDrift, EGMC_PredictionMode::ClientAuth_Output, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindCompressedSinglePrecisionFloat(Heat, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindCompressedRotator(HeadAim, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
}
