/** A point's place on the latency-throughput plane (vLLM's Pareto terms); higher is better on both. */
export interface FrontierCandidate {
  index: number;
  perUser: number;
  perGpu: number;
}

/**
 * The Pareto-optimal points: those no other point dominates (at least as many output tokens/s per user
 * and per GPU, more on one). Indexes by ascending tokens/s per GPU. A sweep has at most 32 points, so
 * the pairwise check is the simple exact one.
 */
export function paretoFrontier(points: readonly FrontierCandidate[]): number[] {
  const dominated = (p: FrontierCandidate) =>
    points.some(
      (q) => q.perUser >= p.perUser && q.perGpu >= p.perGpu && (q.perUser > p.perUser || q.perGpu > p.perGpu),
    );
  return points
    .filter((p) => !dominated(p))
    .sort((a, b) => a.perGpu - b.perGpu || b.perUser - a.perUser)
    .map((p) => p.index);
}
