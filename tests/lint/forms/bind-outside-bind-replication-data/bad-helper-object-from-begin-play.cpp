// The same helper object, but handed the component in BeginPlay: the bindings it calls back
// are made outside BindReplicationData.
class UClimbMovement;

struct FClimbBindings
{
	void Bind(UClimbMovement* Target);
};

class UClimbMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
public:
	void BindClimbValues();
	bool bClimbing = false;
	float Grip = 0.f;
	FClimbBindings Bindings;
};

void FClimbBindings::Bind(UClimbMovement* Target)
{
	Target->BindClimbValues();
}

void UClimbMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
}

void UClimbMovement::BeginPlay()
{
	Super::BeginPlay();
	Bindings.Bind(this);
}

void UClimbMovement::BindClimbValues()
{
	BindBool(bClimbing, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::PeriodicAndOnChange_Output, EGMC_InterpolationFunction::NearestNeighbour); // expect: bind-outside-bind-replication-data
	BindCompressedSinglePrecisionFloat(Grip, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear); // expect: bind-outside-bind-replication-data
}
