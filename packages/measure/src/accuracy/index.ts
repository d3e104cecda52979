export { startSimulatorProcess, stopProcess, STEP_MS, type SimulatorProcess } from './simulator-process';
