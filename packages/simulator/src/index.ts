export { startSimulator, DeploymentError } from './server';
export type { RunningSimulator, SimulatorOptions, SimulatorReconfiguration, SimulatorStats } from './server';
export { groundTruthFromJson, groundTruthToJson } from './ground-truth';
export { fetchGroundTruth } from './ground-truth-client';
export type {
  GroundTruth,
  GroundTruthEvent,
  GroundTruthEventKind,
  GroundTruthFault,
  GroundTruthJson,
  GroundTruthLimits,
  GroundTruthServing,
} from './ground-truth';
export { FAULT_MODES } from './faults';
export type { FaultMode, FaultOptions } from './faults';
export {
  DEFAULT_LATENCY_PARAMS,
  allReduceTimeS,
  decodeStepTimeS,
  describeDeployment,
  kvBytesPerTokenPerGpu,
  matmulFlopsPerS,
  prefillTimeS,
  resolveDeployment,
  stepTimeBreakdown,
  stepTimeS,
  weightBytesPerGpu,
} from './latency-model';
export type {
  Deployment,
  DeploymentInput,
  LatencyParams,
  StepTimeBreakdown,
  StepWork,
} from './latency-model';
export type { EngineState, EngineStats, LatenessSummary, StepRecord } from './engine';
export { countWords } from './vocabulary';
export { replayLoad } from './replay';
export type { ReplayOptions, ReplayResult, ReplayedRequest } from './replay';
export { groundTruthCapacity, judgeLoad, simulatorCapacity } from './capacity-truth';
export type { CapacityAnswer, CapacityQuestion, LoadJudgement } from './capacity-truth';
export type { SchedulerCounters, SchedulerOptions, ServingTally } from './scheduler';
export type { LiveCapacityQuestion } from './capacity-request';
