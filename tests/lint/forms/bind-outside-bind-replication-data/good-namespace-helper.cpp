// The bindings live in a namespace's function, handed the component; what it binds through
// that pointer is bound in BindReplicationData.
class UDiveMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
public:
	bool bDiving = false;
	float DiveDepth = 0.f;
};

namespace DiveBindings
{
	void BindAll(UDiveMovement* Movement);
}

void DiveBindings::BindAll(UDiveMovement* Movement)
{
	Movement->BindBool(Movement->bDiving, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::PeriodicAndOnChange_Output, EGMC_InterpolationFunction::NearestNeighbour);
	Movement->BindCompressedSinglePrecisionFloat(Movement->DiveDepth, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
}

void UDiveMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	DiveBindings::BindAll(this);
}
