import type { RunStore } from '../run-store';
import { ChangePointStore } from './change-points';
import { DeploymentStore } from './deployments';
import { ProfileStore } from './profiles';
import { RunHistogramStore } from './run-histograms';
import { RunRequestStore } from './run-requests';
import { RunRollupStore } from './run-rollups';
import { RunSelectionStore } from './run-selection';
import { SweepSeriesStore } from './sweep-series';

/** Every store the analyses read and write, over one pool. */
export interface AnalysisStores {
  runs: RunSelectionStore;
  histograms: RunHistogramStore;
  requests: RunRequestStore;
  rollups: RunRollupStore;
  profiles: ProfileStore;
  changePoints: ChangePointStore;
  deployments: DeploymentStore;
  sweeps: SweepSeriesStore;
}

export function analysisStores(db: RunStore): AnalysisStores {
  return {
    runs: new RunSelectionStore(db),
    histograms: new RunHistogramStore(db),
    requests: new RunRequestStore(db),
    rollups: new RunRollupStore(db),
    profiles: new ProfileStore(db),
    changePoints: new ChangePointStore(db),
    deployments: new DeploymentStore(db),
    sweeps: new SweepSeriesStore(db),
  };
}
