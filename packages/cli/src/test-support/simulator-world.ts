import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '@teapot/simulator';

export interface SimulatorWorld {
  simulator: RunningSimulator;
  /** A scratch folder for the command's output files, removed with the world. */
  dir: string;
}

/** A simulator and a scratch folder for the specs of one describe block, started and removed around it. */
export function simulatorWorld(options: SimulatorOptions): SimulatorWorld {
  const world = {} as SimulatorWorld;
  beforeAll(async () => {
    world.simulator = await startSimulator(options);
    world.dir = await mkdtemp(join(tmpdir(), 'teapot-cli-'));
  });
  afterAll(async () => {
    await world.simulator?.close();
    if (world.dir) await rm(world.dir, { recursive: true, force: true });
  });
  return world;
}
