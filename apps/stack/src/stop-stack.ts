import { abortUnfinishedRuns, createDatabase, SweepStore } from '@teapot/db';
import { QUEUE_NAMES, UNFINISHED_RUN_STATUSES } from '@teapot/contracts';
import type { StackSession } from './session';
import { WORKERS } from './start-services';

/** What stopping needs to know of how far the launch got. */
export interface LaunchState {
  /** Set once the database exists and is migrated: its unfinished runs are ended on the way out. */
  databaseUrl: string | null;
}

/** Why a run was ended by the launcher rather than measured. */
export const CANCELLED_BY_LAUNCHER =
  'cancelled: teapot (npm start) stopped its workers before this run was measured';

/**
 * Stops every child without leaving a run `queued` or `running` behind: the worker that schedules
 * first (no slot is queued after it), then the runs that never started are ended as aborted, then
 * the measuring worker (its run in flight finishes within SHUTDOWN_GRACE_MS or is aborted and
 * stored), then whatever that worker left unfinished is ended too, and the sweeps whose points those
 * were (the worker that takes sweep steps is stopped by then), then the API and the simulators.
 */
export async function stopStack(
  session: StackSession,
  state: LaunchState,
  say: (text?: string) => void,
): Promise<void> {
  const measuring = (worker: (typeof WORKERS)[number]) =>
    (worker.queues as readonly string[]).includes(QUEUE_NAMES.runs);
  await session.stopNamed(WORKERS.filter((worker) => !measuring(worker)).map((worker) => worker.name));
  const db = state.databaseUrl ? createDatabase(state.databaseUrl, { max: 1 }) : null;
  try {
    // Every endpoint of the stack's database, not only the demo's: once the launcher stops, no
    // worker is left to measure a run of any of them.
    const endpointNames = db
      ? (await db.prisma.endpoint.findMany({ select: { name: true } })).map((endpoint) => endpoint.name)
      : [];
    let cancelled = 0;
    if (db) {
      cancelled += await abortUnfinishedRuns(
        db.prisma,
        { endpointNames, statuses: ['queued'] },
        CANCELLED_BY_LAUNCHER,
      );
    }
    await session.stopNamed(WORKERS.filter(measuring).map((worker) => worker.name));
    if (db) {
      cancelled += await abortUnfinishedRuns(
        db.prisma,
        { endpointNames, statuses: UNFINISHED_RUN_STATUSES },
        CANCELLED_BY_LAUNCHER,
      );
    }
    if (cancelled > 0)
      say(`${cancelled} run(s) that had not been measured were ended as aborted (${CANCELLED_BY_LAUNCHER})`);
    const sweeps = db
      ? await new SweepStore(db).abortUnfinished(
          endpointNames,
          'cancelled: teapot (npm start) stopped its workers before this sweep ended',
        )
      : 0;
    if (sweeps > 0) say(`${sweeps} unfinished sweep(s) were ended as aborted`);
  } catch (error) {
    say(
      `could not end the runs that were never measured: ${error instanceof Error ? error.message : String(error)}`,
    );
  } finally {
    await db?.close();
  }
  await session.stop();
}
