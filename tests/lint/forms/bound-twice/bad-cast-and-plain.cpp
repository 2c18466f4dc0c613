// One member bound plainly and again through a cast.
UENUM()
enum class ELean : uint8 { None, Left, Right };

class ULeanMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	ELean Lean = ELean::None;
};

void ULeanMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindByte((uint8&)Lean, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::NearestNeighbour);
	BindByte(reinterpret_cast<uint8&>(this->Lean), EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::NearestNeighbour); // expect: bound-twice
}
