#include "ArmorMovement.h"

void UArmorMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
}

void UArmorMovement::BeginPlay()
{
	Super::BeginPlay();
	// The class's own helper, called outside BindReplicationData.
	BindArmor(Armor); // expect: bind-outside-bind-replication-data
}

void UArmorMovement::BindArmor(float& Value)
{
	BindSinglePrecisionFloat(Value, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
}
