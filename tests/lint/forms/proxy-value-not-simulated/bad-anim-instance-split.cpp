// An anim instance reading a value the proxies never receive.
class UStrideMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
public:
	float StrideScale = 1.f;
};

class UStrideAnimInstance : public UAnimInstance
{
	GENERATED_BODY()
	UStrideMovement* MovementComponent = nullptr;
	float Stride = 1.f;
	virtual void NativeThreadSafeUpdateAnimation(float DeltaSeconds) override;
};

void UStrideMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindSinglePrecisionFloat(StrideScale, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
}

void UStrideAnimInstance::NativeThreadSafeUpdateAnimation(float DeltaSeconds)
{
	Stride = MovementComponent->StrideScale; // expect: proxy-value-not-simulated
}
