// The combine mode left out: GMC's enumerator 0, AlwaysCombine.
class UShortMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	bool bInputRoll = false;
};

void UShortMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindBool(bInputRoll, EGMC_PredictionMode::ClientAuth_Input); // expect: input-not-combine-if-unchanged
}
