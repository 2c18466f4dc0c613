//! What the lint knows of GMC: the hooks of the prediction and simulation paths, the bind
//! functions' arguments and defaults, and the names of calls that read time, draw random
//! numbers, have side effects or guard them. Sources: docs/lint.md ("The hooks").

use crate::model::binding::{CombineMode, InterpolationFunction, PredictionMode, SimulationMode};

/// The prediction path in the order GMC runs it for one move: `GenPredictionTick` (its code
/// before `Super::` runs first, its code after last), then every overridable function
/// `UGMC_OrganicMovementCmp` calls during the move, `PerformMovement`'s steps first, in
/// their order, then what they call (floor, air, fluid, hits, based movement, root motion).
/// Read in GMC 2.0.0p's `GMCOrganicMovementComponent.cpp`, `GMCMovementUtilityComponent.cpp`
/// and `GMCReplicationComponent.cpp`; the list and its sources are in
/// docs/research/gmc-move-hooks.md. A user's override is named with or without
/// `_Implementation` (BlueprintNativeEvents).
pub const PREDICTION_HOOKS: &[&str] = &[
    "PreProcessMoveDeltaTime",
    "ShouldSkipUpdate",
    "PhysicsSimulationUpdate",
    "PerformMovement",
    // PerformMovement, in order.
    "PreMovementUpdate",
    "ClampToValidValues",
    "UpdateBasedMovementRelative",
    "UpdateBasedMovementVelocity",
    "UpdateBasedMovementNone",
    "UpdateImmersionDepth",
    "CanMove",
    "HaltMovement",
    "UpdateMovementModeDynamic",
    "UpdateMovementModeStatic",
    "OnMovementModeChanged",
    "OnMovementModeUpdated",
    "PreProcessInputVector",
    "RoundInputVector",
    "RunPhysics",
    "PrePhysicsUpdate",
    "PhysicsGrounded",
    "PhysicsAirborne",
    "PhysicsBuoyant",
    "PhysicsCustom",
    "PostPhysicsUpdate",
    "MovementUpdate",
    "MontageUpdate",
    "PostMovementUpdate",
    // Modes and landing.
    "RaiseFromGround",
    "CheckLeaveFluid",
    "MaintainDistanceToFloor",
    "HitWalkableFloor",
    "ProcessLanded",
    "OnLanded",
    "PostProcessVelocityToImpart",
    // Velocity.
    "CalculateVelocity",
    "ShouldPerformDirectMove",
    "BotDirectMove",
    "ApplyInputVelocity",
    "ComputeInputAcceleration",
    "GetInputAcceleration",
    "GetInputAccelerationCustom",
    "ApplyFallControl",
    "ApplyRotation",
    "ApplyExternalForces",
    "ApplyLedgeFallOffAcceleration",
    "ComputeBuoyantForce",
    "CalculateVelocityCustom",
    "ApplyDeceleration",
    "GetBrakingDeceleration",
    "GetBrakingDecelerationCustom",
    "LimitSpeed",
    "GetOverMaxSpeedDecelerationCustom",
    "GetMaxSpeed",
    "ComputeInputModifier",
    "CalculateAvoidanceVelocity",
    "PostProcessAvoidanceVelocity",
    "PostProcessPawnVelocity",
    // Floor, steps, slides, air, fluid, hits.
    "MoveAlongFloor",
    "StepUp",
    "UpdateFloor",
    "AdjustVelocityFromHit",
    "MoveThroughAir",
    "AdjustVelocityFromHitAirborne",
    "MoveThroughFluid",
    "Swim",
    "ProcessLeftFluid",
    "HandleImpact",
    "OnStuckInGeometry",
    "ApplyDownwardForce",
    "ApplyRepulsionForce",
    // Based movement inside the move.
    "MoveWithBaseVelocity",
    "FindActorBase",
    "TraceForActorBase",
    "HandleActorBaseChange",
    "OnActorBaseChanged",
    // Root motion and montages (from MontageUpdate).
    "PreProcessRootMotion",
    "CalculateAnimRootMotionVelocity",
    "PostProcessAnimRootMotionVelocity",
    "ApplyAnimRootMotionRotation",
    "CallMontageEvents",
    "OnMontageStarted",
    "OnMontageBlendIn",
    "OnMontageBlendOut",
    "OnMontageNotifyBegin",
    "OnMontageNotifyEnd",
    "OnMontageCompleted",
];

/// The entry of the prediction path.
pub const PREDICTION_TICK: &str = "GenPredictionTick";

/// The simulated proxy's (cosmetic) path: `GenSimulationTick` and the organic component's
/// simulated hooks.
pub const SIMULATION_HOOKS: [&str; 5] = [
    "GenSimulationTick",
    "MovementUpdateSimulated",
    "OnMovementModeChangedSimulated",
    "OnLandedSimulated",
    "OnActorBaseChangedSimulated",
];

/// Where bindings belong.
pub const BIND_FUNCTION: &str = "BindReplicationData";

/// Where transitions are wrongly detected (pitfall 8).
pub const SYNC_APPLIED: &str = "OnSyncDataApplied";

/// GMC hooks whose override makes a class a GMC component (with `_Implementation`, so a
/// plain `MovementUpdate` in unrelated code does not count).
pub fn is_component_marker(name: &str) -> bool {
    let Some(base) = name.strip_suffix("_Implementation") else {
        return false;
    };
    base == BIND_FUNCTION
        || base == PREDICTION_TICK
        || base == SYNC_APPLIED
        || base == "GenAncillaryTick"
        || base == "WorldTickEnd"
        || base == "WorldTickStart"
        || PREDICTION_HOOKS.contains(&base)
        || SIMULATION_HOOKS.contains(&base)
}

/// Known GMC component classes, so a class deriving from one is a component.
pub const GMC_CLASSES: [&str; 5] = [
    "UGMC_ReplicationCmp",
    "UGMC_MovementUtilityCmp",
    "UGMC_OrganicMovementCmp",
    "UGMC_GoldSrcMovementCmp",
    "UGMC_FlyingMovementCmp",
];

/// `name` without a trailing `_Implementation`.
pub fn hook_base(name: &str) -> &str {
    name.strip_suffix("_Implementation").unwrap_or(name)
}

/// A mode argument as written, resolved.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg<T> {
    /// An enumerator written out.
    Given(T),
    /// `{}`, `EGMC_…{}` or left out: GMC's enumerator 0.
    Default(T),
    /// Something else (a variable, a cast): the lint cannot tell.
    Unknown(String),
}

impl<T: Copy> Arg<T> {
    pub fn value(&self) -> Option<T> {
        match self {
            Arg::Given(v) | Arg::Default(v) => Some(*v),
            Arg::Unknown(_) => None,
        }
    }
}

fn enumerator<T: Copy>(text: &str, default: T, by_name: impl Fn(&str) -> Option<T>) -> Arg<T> {
    let t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    if t.is_empty() || t == "{}" || t.ends_with("{}") || t.ends_with("()") {
        return Arg::Default(default);
    }
    // `bFlag ? A : B` and other expressions: not one enumerator.
    if t.contains('?') || t.contains('(') {
        return Arg::Unknown(text.to_string());
    }
    let last = t.rsplit("::").next().unwrap_or(&t);
    match by_name(last) {
        Some(v) => Arg::Given(v),
        None => Arg::Unknown(text.to_string()),
    }
}

/// `EGMC_PredictionMode` (enumerator 0: ServerAuth_Output_ClientValidated; `None` is an older
/// spelling of `Local`).
pub fn prediction(text: &str) -> Arg<PredictionMode> {
    enumerator(
        text,
        PredictionMode::ServerAuth_Output_ClientValidated,
        |n| {
            if n == "None" {
                return Some(PredictionMode::Local);
            }
            PredictionMode::ALL
                .into_iter()
                .find(|m| format!("{m:?}") == n)
        },
    )
}

/// `EGMC_CombineMode` (enumerator 0: AlwaysCombine).
pub fn combine(text: &str) -> Arg<CombineMode> {
    enumerator(text, CombineMode::AlwaysCombine, |n| {
        CombineMode::ALL.into_iter().find(|m| format!("{m:?}") == n)
    })
}

/// `EGMC_SimulationMode` (enumerator 0: Periodic_Output, not None).
pub fn simulation(text: &str) -> Arg<SimulationMode> {
    enumerator(text, SimulationMode::Periodic_Output, |n| {
        SimulationMode::ALL
            .into_iter()
            .find(|m| format!("{m:?}") == n)
    })
}

/// `EGMC_InterpolationFunction` (enumerator 0: NearestNeighbour). Custom1–8 are kept as
/// unknown: movescope does not model user interpolation.
pub fn interpolation(text: &str) -> Arg<InterpolationFunction> {
    enumerator(text, InterpolationFunction::NearestNeighbour, |n| {
        InterpolationFunction::ALL
            .into_iter()
            .find(|m| format!("{m:?}") == n)
    })
}

/// The identifiers of a piece of code.
pub fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
}

/// Conditions that differ between machines by design: net mode, role, authority, local
/// control (pitfall 10: a binding under one is made on some machines only).
pub fn is_machine_condition(text: &str) -> bool {
    words(text).any(|w| {
        matches!(
            w,
            "GetNetMode"
                | "IsNetMode"
                | "NM_Client"
                | "NM_DedicatedServer"
                | "NM_ListenServer"
                | "NM_Standalone"
                | "HasAuthority"
                | "IsServer"
                | "IsClient"
                | "GetOwnerRole"
                | "GetLocalRole"
                | "GetRemoteRole"
                | "ROLE_Authority"
                | "ROLE_AutonomousProxy"
                | "ROLE_SimulatedProxy"
                | "IsLocallyControlled"
                | "IsLocalController"
                | "IsPlayerControlled"
                | "IsRunningDedicatedServer"
                | "IsDedicatedServer"
                | "IsListenServer"
                | "IsAutonomousProxy"
                | "IsSimulatedProxy"
                | "IsLocallyControlledServerPawn"
                | "IsRemotelyControlledServerPawn"
                | "IsLocallyControlledDedicatedServerPawn"
                | "IsLocallyControlledListenServerPawn"
                | "IsSmoothedListenServerPawn"
                | "IsServerBot"
                // GMC's own: true only for a server bot (`… && IsServerBot()`).
                | "ShouldComputeAvoidance"
                | "IsNetworkedServer"
                | "UE_SERVER"
                | "WITH_SERVER_CODE"
                | "UE_BUILD_SHIPPING"
        ) || w.starts_with("IsNetMode")
    })
}

/// Calls that read the world or real clock (pitfall 2a). `GetMoveTimestamp` is the right one.
pub fn is_world_time_call(path: &str, name: &str, receiver: Option<&str>) -> bool {
    match name {
        "GetTimeSeconds"
        | "GetRealTimeSeconds"
        | "GetUnpausedTimeSeconds"
        | "GetAudioTimeSeconds"
        | "GetGameTimeSinceCreation"
        | "GetSyncedWorldTimeSeconds"
        | "GetServerWorldTimeSeconds"
        | "TimeSince"
        | "GetTimeSince"
        | "RealTimeSince" => true,
        "Now" | "UtcNow" => path.contains("FDateTime"),
        "Seconds" | "Cycles" | "Cycles64" => path.contains("FPlatformTime"),
        // GMC's own server clock: unqualified (or this->) inside a component.
        "GetTime" => receiver.is_none() && !path.contains("::"),
        _ => false,
    }
}

/// Fields that are the world clock.
pub fn is_world_time_field(name: &str) -> bool {
    matches!(
        name,
        "TimeSeconds" | "RealTimeSeconds" | "UnpausedTimeSeconds" | "AudioTimeSeconds"
    )
}

/// Calls that read the frame's delta (pitfall 2c); the move's is the `DeltaTime` argument.
pub fn is_frame_delta_call(path: &str, name: &str) -> bool {
    matches!(
        name,
        "GetDeltaSeconds" | "GetWorldDeltaSeconds" | "GetActorTimeDilation"
    ) || (name == "GetDeltaTime" && path.contains("FApp"))
}

pub fn is_frame_delta_field(name: &str) -> bool {
    matches!(name, "DeltaTimeSeconds" | "DeltaRealTimeSeconds")
}

/// Unseeded random draws (pitfall 2d). `GenerateNetRandomNumber` / `GenerateNetRandomAngle`
/// are GMC's synchronized ones and do not count.
pub fn is_unseeded_random_call(path: &str, name: &str) -> bool {
    let fmath = path.starts_with("FMath::") || path.starts_with("UKismetMathLibrary::");
    (fmath
        && (name.starts_with("Rand")
            || name.starts_with("FRand")
            || name.starts_with("VRand")
            || name.starts_with("SRand")
            || name == "RandomBool"
            || name.starts_with("RandomFloat")
            || name.starts_with("RandomInteger")
            || name.starts_with("RandomUnitVector")))
        || matches!(path, "rand" | "std::rand" | "std::random_device")
        || name == "GenerateNewSeed"
}

/// Methods of `FRandomStream` that draw.
pub fn is_stream_draw(name: &str) -> bool {
    matches!(
        name,
        "FRand"
            | "RandRange"
            | "FRandRange"
            | "RandHelper"
            | "GetFraction"
            | "GetUnsignedInt"
            | "VRand"
            | "GetUnitVector"
    )
}

/// Calls the world observes (pitfall 5): sound, effects, spawning, damage, on-screen messages,
/// ability activation, camera shakes, force feedback. RPCs are found from `UFUNCTION`.
pub fn is_side_effect_call(path: &str, name: &str) -> bool {
    name.starts_with("PlaySound")
        || name.starts_with("SpawnSound")
        || name.starts_with("SpawnEmitter")
        || name.starts_with("SpawnSystem")
        || name.starts_with("SpawnDecal")
        || name.starts_with("SpawnActor")
        || name.starts_with("SpawnForceFeedback")
        || name.starts_with("ApplyDamage")
        || name.starts_with("ApplyPointDamage")
        || name.starts_with("ApplyRadialDamage")
        || matches!(
            name,
            "TakeDamage"
                | "AddOnScreenDebugMessage"
                | "ClientStartCameraShake"
                | "StartCameraShake"
                | "PlayWorldCameraShake"
                | "PlayDynamicForceFeedback"
                | "ClientPlayForceFeedback"
                | "TryActivateAbility"
                | "TryActivateAbilityByClass"
                | "TryActivateAbilitiesByTag"
                | "MakeNoise"
                | "ReportNoiseEvent"
        )
        || (name == "Activate" && path.contains("Niagara"))
}

/// Sealing the move after a one-shot (pitfall 3).
pub const SEAL: &str = "CL_DoNotCombineNextMove";

/// True for a member name that reads as a one-shot or a Last/Prev copy.
pub fn is_previous_copy(name: &str) -> bool {
    let n = name.strip_prefix('b').unwrap_or(name);
    ["Last", "Prev", "Previous", "Old", "Was", "Cached"]
        .iter()
        .any(|p| {
            n.starts_with(p)
                && n[p.len()..].starts_with(|c: char| c.is_ascii_uppercase() || c == '_')
        })
}

/// Numeric member types (a count, a timer, an amount).
pub fn is_number_type(ty: &str) -> bool {
    matches!(
        ty.trim_start_matches("const ").trim(),
        "float"
            | "double"
            | "int"
            | "int8"
            | "int16"
            | "int32"
            | "int64"
            | "uint8"
            | "uint16"
            | "uint32"
            | "uint64"
    )
}

/// Types whose value a move carries over (numbers, vectors, flags, enums, tags): the ones an
/// unbound member of can break a replay. Pointers, containers, handles and streams are not.
pub fn is_state_type(ty: &str) -> bool {
    let t = ty.trim_start_matches("const ").trim();
    if t.ends_with('*')
        || t.ends_with('&')
        || t.contains("Ptr<")
        || t.contains('<') && !t.starts_with("TEnumAsByte")
    {
        return false;
    }
    is_number_type(t)
        || matches!(
            t,
            "bool"
                | "FVector"
                | "FVector2D"
                | "FRotator"
                | "FQuat"
                | "FTransform"
                | "FGameplayTag"
                | "FGameplayTagContainer"
                | "FName"
        )
        || t.starts_with("TEnumAsByte")
        || (t.starts_with('E') && t.chars().nth(1).is_some_and(|c| c.is_ascii_uppercase()))
}

/// Data members a component inherits: those GMC's own component classes declare
/// (`UGMC_ReplicationCmp`, `UGMC_MovementUtilityCmp`, `UGMC_OrganicMovementCmp`; names read from
/// GMC's public headers) and Unreal's movement component bases (`Velocity`,
/// `UpdatedComponent`…). A `.cpp` linted without its header does not make them its own.
pub const INHERITED_MEMBERS: [&str; 236] = [
    "Acceleration",
    "ActorBase",
    "AdaptiveDelayParams",
    "AliasData",
    "AngularVelocity",
    "AnimRootMotionTranslationScale",
    "AvoidanceConsiderationRadius",
    "AvoidanceGroup",
    "AvoidanceLockTimer",
    "AvoidanceLockVelocity",
    "AvoidanceUID",
    "AvoidanceWeight",
    "BI_CurrentRootCollisionExtent",
    "BI_CurrentRootCollisionShape",
    "BI_HasRootMotion",
    "BI_MontageTracker_Montage",
    "BI_MontageTracker_MontagePaused",
    "BI_MontageTracker_MontagePlayRate",
    "BI_MontageTracker_MontagePosition",
    "BI_MovementMode",
    "BI_RawInputVector",
    "BI_ReceivedUpwardForce",
    "BI_RelBasedMovementAux_ActorBaseRotation",
    "BasedMovement",
    "BlockMontageTimerSimulated",
    "BrakingDecelerationAirborne",
    "BrakingDecelerationBuoyant",
    "BrakingDecelerationGrounded",
    "Buoyancy",
    "BuoyantStateMinImmersion",
    "CL_MoveExecutionAux",
    "CL_NoPredictionSwapBuffer",
    "CL_SavedPreReplayMontageTracker",
    "CL_SmoothCorrection",
    "ClientPawnRollbackRadius",
    "ClientSendRate",
    "ComponentStatus",
    "CumulativeSimulationParams",
    "CurrentFloor",
    "CurrentImmersionDepth",
    "CurrentRootCollisionExtent",
    "CurrentRootCollisionShape",
    "CurrentSmoothingSkippedIdx",
    "CurrentSmoothingTargetIdx",
    "CurrentSmoothingTime",
    "DefaultSpeed",
    "DirectionalInput",
    "DownwardForceScale",
    "DynamicBufferTimeAux",
    "EndMontageTimerSimulated",
    "ExtrapolationMode",
    "FallControl",
    "FixedDelayParams",
    "FloorTraceLength",
    "FloorTraceShapeScale",
    "FloorUpdateTolerance",
    "FluidMinExitSpeed",
    "Force",
    "GMCAggregator",
    "GenericClientActorRollbackRadius",
    "GenericServerActorRollbackRadius",
    "GravityScale",
    "GroundFriction",
    "GroupsToAvoid",
    "GroupsToIgnore",
    "InitialPushForceScale",
    "InputAccelerationAirborne",
    "InputAccelerationBuoyant",
    "InputAccelerationGrounded",
    "InterpolationMode",
    "LandingVelocity",
    "LedgeFallOffDirection",
    "LedgeFallOffThreshold",
    "Location0",
    "Mass",
    "MatchLatestParams",
    "MatchLatestParamsAux",
    "MaxAllowedTimeDeviation",
    "MaxClientUpdateWaitTime",
    "MaxCombinedDeltaTime",
    "MaxDepenetrationWithGeometry",
    "MaxDepenetrationWithPawn",
    "MaxDesiredSpeed",
    "MaxExtrapolationDistance",
    "MaxGroundedVelocityZ",
    "MaxIterations",
    "MaxMoveDeltaTime",
    "MaxNumBufferedRemoteMoves",
    "MaxStepDownHeight",
    "MaxStepUpHeight",
    "MaxTimeStep",
    "MaxTouchForce",
    "MinAnalogWalkSpeed",
    "MinTouchForce",
    "MontageBlendInDelegate",
    "MontageBlendOutDelegate",
    "MontageCompleteDelegate",
    "MontageNotifyBeginDelegate",
    "MontageNotifyEndDelegate",
    "MontageReplication",
    "MontageStartDelegate",
    "MontageTracker",
    "MoveComponentFlags",
    "MoveDeltaTime",
    "MoveExecutionFrequency",
    "MoveHistory",
    "MoveHistoryMaxSize",
    "MoveInputState",
    "MoveIteration",
    "MoveTimestamp",
    "MovementMode",
    "NavMeshWalkingAux",
    "NetReserializationInterval",
    "NoInterpStates",
    "OverMaxSpeedDecelerationAirborne",
    "OverMaxSpeedDecelerationBuoyant",
    "OverMaxSpeedDecelerationGrounded",
    "PartialImmersionSlowDown",
    "PartialImmersionThreshold",
    "PawnOwner",
    "PhysDeltaTime",
    "PhysicsInterpolationMethod",
    "PhysicsInterpolationMode",
    "PlaneConstraintAxisSetting",
    "PlaneConstraintNormal",
    "PlaneConstraintOrigin",
    "PostSmoothingParams",
    "PredictedClientNetUpdateFrequency",
    "PreviousControlRotationSimulated",
    "PreviousMontageSimulated",
    "PreviousMovementModeSimulated",
    "PrimaryComponentTick",
    "ProcessedInputVector",
    "PushForceScale",
    "PushForceZOffsetFactor",
    "RawInputVector",
    "RelBasedMovementAux",
    "RemoteMoveProcessingChunkSize",
    "ReplicationSettings",
    "RepulsionForce",
    "RequestedVelocity",
    "RollbackRestoreBuffer",
    "RollbackSwapBuffer",
    "RootMotionParams",
    "RotationRate",
    "SV_NetReserializationAux",
    "SV_PredictedClientNetSerializationAux",
    "SV_RemoteMoveExecutionAux",
    "SV_RemoteServerPawnSmoothingSwapBuffer",
    "SV_TimestampVerificationAux",
    "SavedSettingsClientAuthPhysics",
    "SavedSettingsServerAuthPhysics",
    "ServerMinUpdateRate",
    "ServerPawnRollbackRadius",
    "SimLocationUpdateThreshold",
    "SimulatedControlRotation",
    "SimulatedProxyPhysicsInterp",
    "SimulationAux",
    "SimulationThrottle",
    "SkeletalMesh",
    "SmoothCorrection",
    "TouchForceScale",
    "UniformSimulationParams",
    "UpdatedComponent",
    "UpdatedPrimitive",
    "UseUnreliableClientMovesThreshold",
    "Velocity",
    "Velocity0",
    "VelocityBeforeMovementUpdate",
    "VerificationPeriod",
    "ViewInput",
    "WalkableFloorAngle",
    "WalkableFloorZ",
    "bAlwaysReplay",
    "bAssumeClientState",
    "bAutoActivate",
    "bAutoRegisterUpdatedComponent",
    "bAutoUpdateTickRegistration",
    "bCanWalkOffLedges",
    "bComponentShouldUpdatePhysicsVolume",
    "bConstrainToPlane",
    "bDetermineSkippedSmoothingStates",
    "bDisablePoseTickOnDedicatedServer",
    "bEnablePhysicsInteraction",
    "bExcludeFromRollback",
    "bGroundingWithoutGravity",
    "bHasRootMotion",
    "bHideProperties",
    "bIgnoreInputModifier",
    "bIsCombinedMove",
    "bIsLocalMove",
    "bIsSimulatedMove",
    "bIsSubSteppedMoveIteration",
    "bIsUsingAvoidanceInternal",
    "bLandOnEdges",
    "bNoBlueprintEvents",
    "bNoMoveCombining",
    "bNoSmoothing",
    "bOrientToControlRotationDirection",
    "bOrientToInputDirection",
    "bPreventSlopeBoosting",
    "bReceivedUpwardForce",
    "bRecoverActorLocation",
    "bRecoverActorRotation",
    "bRecoverActorScale",
    "bRecoverControlRotation",
    "bRequestedMoveWithMaxSpeed",
    "bRescaleSlopeDelta",
    "bRestoreClientAuthValuesAfterReplay",
    "bRollBackClientPawns",
    "bRollBackGenericClientActors",
    "bRollBackGenericServerActors",
    "bRollBackServerPawns",
    "bScalePushForceToMass",
    "bScalePushForceToVelocity",
    "bScaleTouchForceToMass",
    "bSimplifyStepUp",
    "bSkipBoneUpdateForRollback",
    "bSkipBoneUpdateForSmoothing",
    "bSmoothMesh",
    "bSmoothRemoteListenServerPawn",
    "bSnapToPlaneAtStart",
    "bTickBeforeOwner",
    "bUpdateOnlyIfRendered",
    "bUseAvoidance",
    "bUseClientPrediction",
    "bUseConditionalNetSerialization",
    "bUseFloorUpdateToleranceForNavMeshWalking",
    "bUseNavMeshWalking",
    "bUsePushForceZOffset",
    "bUseRelativeValuesForPrediction",
    "bUseRelativeValuesForSimulation",
    "bUseRequestedVelocityMaxSpeed",
    "bUseSafeRotations",
    "bVerifyClientTimestamps",
    "bWasAvoidanceUpdated",
];

/// Whether `name` is a member a GMC component inherits ([`INHERITED_MEMBERS`]).
pub fn is_inherited_member(name: &str) -> bool {
    INHERITED_MEMBERS.binary_search(&name).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The inherited members are searched by bisection: they must stay sorted.
    #[test]
    fn inherited_members_are_sorted_and_found() {
        assert!(INHERITED_MEMBERS.windows(2).all(|w| w[0] < w[1]));
        assert!(is_inherited_member("Velocity") && is_inherited_member("MaxDesiredSpeed"));
        assert!(!is_inherited_member("ChargeSeconds"));
    }

    #[test]
    fn mode_arguments_resolve_with_gmc_defaults() {
        assert_eq!(
            prediction("EGMC_PredictionMode::ClientAuth_Input"),
            Arg::Given(PredictionMode::ClientAuth_Input)
        );
        assert_eq!(combine("{}"), Arg::Default(CombineMode::AlwaysCombine));
        assert_eq!(
            simulation("EGMC_SimulationMode{}"),
            Arg::Default(SimulationMode::Periodic_Output)
        );
        assert_eq!(
            interpolation(""),
            Arg::Default(InterpolationFunction::NearestNeighbour)
        );
        assert_eq!(
            prediction("EGMC_PredictionMode::None"),
            Arg::Given(PredictionMode::Local)
        );
        assert!(matches!(combine("Mode"), Arg::Unknown(_)));
        assert!(matches!(
            prediction(
                "bSend ? EGMC_PredictionMode::ClientAuth_Input : EGMC_PredictionMode::Local"
            ),
            Arg::Unknown(_)
        ));
    }

    #[test]
    fn word_tables() {
        assert!(is_machine_condition("GetOwnerRole() == ROLE_Authority"));
        assert!(!is_machine_condition("bEnableDash"));
        assert!(is_world_time_call(
            "GetWorld()->GetTimeSeconds",
            "GetTimeSeconds",
            Some("GetWorld()")
        ));
        assert!(!is_world_time_call(
            "GetMoveTimestamp",
            "GetMoveTimestamp",
            None
        ));
        assert!(is_unseeded_random_call("FMath::RandRange", "RandRange"));
        assert!(!is_unseeded_random_call(
            "GenerateNetRandomNumber",
            "GenerateNetRandomNumber"
        ));
        assert!(is_previous_copy("bLastSeenDead") && is_previous_copy("PrevMode"));
        assert!(!is_previous_copy("Lastly") && !is_previous_copy("bDash"));
        assert!(is_state_type("float") && is_state_type("EMyMode") && !is_state_type("AActor*"));
        assert!(!is_state_type("TArray<float>") && is_state_type("TEnumAsByte<EMode>"));
    }
}
