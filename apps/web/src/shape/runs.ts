import type { Schemas } from '../api/client';

type Run = Pick<Schemas['RunDto'], 'itlP99Ms' | 'clientSaturated' | 'finishedAt' | 'queuedAt'>;

/** The runs that are results: finished with an ITL, and the client was not the bottleneck. */
export function isResult(run: Run): boolean {
  return run.itlP99Ms !== null && run.clientSaturated !== true && run.finishedAt !== null;
}

/** Finished with an ITL, whether or not the client kept up. */
export function hasItl(run: Run): boolean {
  return run.itlP99Ms !== null && run.finishedAt !== null;
}

/** P99 ITL per run, oldest first, as uPlot data (x in unix seconds); client-saturated runs only on request. */
export function itlP99Sparkline(runs: readonly Run[], includeSaturated = false): [number[], number[]] {
  const points = runs
    .filter(includeSaturated ? hasItl : isResult)
    .map((run) => [Date.parse(run.finishedAt as string) / 1000, run.itlP99Ms as number] as const)
    .sort((a, b) => a[0] - b[0]);
  return [points.map((p) => p[0]), points.map((p) => p[1])];
}

/** The newest run that is a result (the API lists newest first). */
export function latestResult<R extends Run>(runsNewestFirst: readonly R[]): R | undefined {
  return runsNewestFirst.find(isResult);
}
