// The same component with its declaration in the file.
class UHoverMovementDeclared : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	float HoverHeight = 0.f;
};

void UHoverMovementDeclared::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindSinglePrecisionFloat(HoverHeight, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
}

void UHoverMovementDeclared::MovementUpdate_Implementation(float DeltaSeconds)
{
	Super::MovementUpdate_Implementation(DeltaSeconds);
	HoverHeight = FMath::FInterpTo(HoverHeight, 120.f, DeltaSeconds, 4.f);
}
