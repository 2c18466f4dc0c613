#include "GliderMovement.h"

void UGliderMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindByte(WingState, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::NearestNeighbour);
}

void UGliderMovement::OnSyncDataApplied_Implementation(const FGMC_PawnState& State, EGMC_NetContext Context)
{
	Super::OnSyncDataApplied_Implementation(State, Context);
	if (WingState != DisplayedWingState) // expect: transition-in-sync-applied
	{
		PlayWingSound();
	}
	RememberWingState();
}

void UGliderMovement::RememberWingState()
{
	DisplayedWingState = WingState;
}
