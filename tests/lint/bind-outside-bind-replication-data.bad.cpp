UCLASS()
class MYGAME_API ULateBindMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
public:
	virtual void BindReplicationData_Implementation() override;
	virtual void BeginPlay() override;
	UPROPERTY()
	float Stamina = 100.f;
};

void ULateBindMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
}

void ULateBindMovement::BeginPlay()
{
	Super::BeginPlay();
	BindSinglePrecisionFloat(Stamina, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear); // expect: bind-outside-bind-replication-data
}
