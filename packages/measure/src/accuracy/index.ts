export { startSimulatorProcess, stopProcess, STEP_MS, type SimulatorProcess } from './simulator-process';
export { addedDelays, type AddedDelays, type WrittenStream } from './added-delay';
export { measurePlainClient, type PlainRun } from './node-floor';
export { runAccuracyClient } from './client';
export {
  PLAIN_BODY,
  type ClientDocument,
  type ClientJob,
  type ClientName,
  type StreamDocument,
} from './documents';
