import type { DeploymentVerdictName, RunStatusName, SweepStatusName } from '@teapot/contracts';
import { poolOf, type RunStore } from '../run-store';

/** A run a deployment queued, as its verification reads it. */
export interface DeploymentRun {
  id: string;
  profileId: string | null;
  status: RunStatusName;
}

/** A sweep a deployment queued. */
export interface DeploymentSweep {
  id: string;
  profileId: string | null;
  status: SweepStatusName;
}

/** A deployment as a trend draws it. */
export interface DeploymentMark {
  id: string;
  endpointId: string;
  effectiveAt: Date;
  label: string;
  version: string | null;
  verdict: DeploymentVerdictName | null;
}

/** What a deployment's baseline is: the last `runs` successful runs of a profile finished by `before`. */
export interface BaselineFilter {
  profileId: string;
  before: Date;
  runs: number;
  includeSaturated: boolean;
}

/** Deployments (settings, stored verification) and the runs they queue or are judged against. */
export class DeploymentStore {
  constructor(private readonly db: RunStore) {}

  /** The runs a deployment queued, in the order it queued them. */
  async runsOf(deploymentId: string): Promise<DeploymentRun[]> {
    const { rows } = await poolOf(this.db).query<{
      id: string;
      profile_id: string | null;
      status: RunStatusName;
    }>(
      // A sweep's points are the sweep's: sweepsOf lists the sweeps.
      `SELECT id, profile_id, status::text AS status FROM runs
        WHERE deployment_id = $1 AND sweep_id IS NULL ORDER BY queued_at, id`,
      [deploymentId],
    );
    return rows.map((row) => ({ id: row.id, profileId: row.profile_id, status: row.status }));
  }

  /** The sweeps a deployment queued (for its sweep profiles), in the order it queued them. */
  async sweepsOf(deploymentId: string): Promise<DeploymentSweep[]> {
    const { rows } = await poolOf(this.db).query<DeploymentSweep>(
      `SELECT id, profile_id AS "profileId", status::text AS status FROM sweeps
        WHERE deployment_id = $1 ORDER BY queued_at, id`,
      [deploymentId],
    );
    return rows;
  }

  /** The baseline of a sweep profile: its last `runs` finished capacity searches by `before`, oldest first. */
  async baselineSweepIds(filter: Omit<BaselineFilter, 'includeSaturated'>): Promise<string[]> {
    const { rows } = await poolOf(this.db).query<{ id: string }>(
      `SELECT id FROM sweeps
        WHERE profile_id = $1 AND status = 'succeeded' AND spec->>'kind' = 'capacity' AND finished_at <= $2
        ORDER BY finished_at DESC, id DESC LIMIT $3`,
      [filter.profileId, filter.before, filter.runs],
    );
    return rows.map((sweep) => sweep.id).reverse();
  }

  /** The baseline's run ids, oldest first. */
  async baselineRunIds(filter: BaselineFilter): Promise<string[]> {
    const { rows } = await poolOf(this.db).query<{ id: string }>(
      `SELECT id FROM runs
        WHERE profile_id = $1 AND status = 'succeeded' AND finished_at <= $2 AND sweep_id IS NULL
          AND ($4 OR NOT COALESCE(client_saturated, false))
        ORDER BY finished_at DESC, id DESC LIMIT $3`,
      [filter.profileId, filter.before, filter.runs, filter.includeSaturated],
    );
    return rows.map((run) => run.id).reverse();
  }

  /** The latest `limit` deployments of these endpoints that took effect in [from, to), oldest first. */
  async inRange(
    endpointIds: readonly string[],
    from: Date,
    to: Date,
    limit: number,
  ): Promise<DeploymentMark[]> {
    const { rows } = await poolOf(this.db).query<{
      id: string;
      endpoint_id: string;
      effective_at: Date;
      label: string;
      version: string | null;
      verdict: DeploymentVerdictName | null;
    }>(
      `SELECT * FROM (
         SELECT id, endpoint_id, effective_at, label, version, verdict::text AS verdict FROM deployments
          WHERE endpoint_id = ANY($1::uuid[]) AND effective_at >= $2 AND effective_at < $3
          ORDER BY effective_at DESC, id DESC LIMIT $4) latest
        ORDER BY effective_at, id`,
      [endpointIds, from, to, limit],
    );
    return rows.map((row) => ({
      id: row.id,
      endpointId: row.endpoint_id,
      effectiveAt: row.effective_at,
      label: row.label,
      version: row.version,
      verdict: row.verdict,
    }));
  }
}
