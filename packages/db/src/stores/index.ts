import type { ReadStore, RunStore } from '../run-store';
import { ChangePointStore } from './change-points';
import { DeploymentStore } from './deployments';
import { ProfileStore } from './profiles';
import { RunHistogramStore } from './run-histograms';
import { RunRequestStore } from './run-requests';
import { RunRollupStore } from './run-rollups';
import { RunSelectionStore } from './run-selection';
import { SweepSeriesStore } from './sweep-series';

/** The stores that only read, over a pool or one caller's cancellable statements (`cancellableQueries`). */
export interface ReadStores {
  runs: RunSelectionStore;
  histograms: RunHistogramStore;
  requests: RunRequestStore;
  rollups: RunRollupStore;
  profiles: ProfileStore;
  sweeps: SweepSeriesStore;
}

/** Every store the analyses read and write, over one pool. */
export interface AnalysisStores extends ReadStores {
  changePoints: ChangePointStore;
  deployments: DeploymentStore;
}

export function readStores(db: ReadStore): ReadStores {
  return {
    runs: new RunSelectionStore(db),
    histograms: new RunHistogramStore(db),
    requests: new RunRequestStore(db),
    rollups: new RunRollupStore(db),
    profiles: new ProfileStore(db),
    sweeps: new SweepSeriesStore(db),
  };
}

export function analysisStores(db: RunStore): AnalysisStores {
  return { ...readStores(db), changePoints: new ChangePointStore(db), deployments: new DeploymentStore(db) };
}
