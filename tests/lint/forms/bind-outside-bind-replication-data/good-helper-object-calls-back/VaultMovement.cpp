#include "VaultMovement.h"

void UVaultMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	Helper->Bind(this);
}

void UVaultMovement::BindVaultValues()
{
	BindBool(bVaulting, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::PeriodicAndOnChange_Output, EGMC_InterpolationFunction::NearestNeighbour);
	BindCompressedSinglePrecisionFloat(VaultProgress, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::AlwaysCombine, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);
}
