#include "MovescopePawnCmp.h"

void UMovescopePawnCmp::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();

	BindCompressedVector2D(input_move, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindBool(input_dash, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindCompressedSinglePrecisionFloat(dash_cooldown, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
	BindByte(dash_count, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::PeriodicAndOnChange_Output, EGMC_InterpolationFunction::NearestNeighbour);
	BindCompressedSinglePrecisionFloat(stride, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
	BindCompressedSinglePrecisionFloat(move_ramp, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::None, EGMC_InterpolationFunction::Linear);
	BindByte(team, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::PeriodicAndOnChange_Output, EGMC_InterpolationFunction::NearestNeighbour);
}
