import { readMeasuredRequests, type MeasuredRequests } from '../run-reader';
import type { ReadStore } from '../run-store';

/** The raw per-request timings of runs (run_requests), as analyses over requests read them. */
export class RunRequestStore {
  constructor(private readonly db: ReadStore) {}

  /** The successful measured requests of these runs whose raw timings are kept; callers bound the runs. */
  measured(runIds: string[]): Promise<MeasuredRequests> {
    return readMeasuredRequests(this.db, runIds);
  }
}
