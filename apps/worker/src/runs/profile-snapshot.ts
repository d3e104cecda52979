import { parseProfileSnapshot, type ProfileSnapshot } from '@teapot/contracts';
import type { RunOptions, Target } from '@teapot/measure';
import { readTokenizerIn, TokenizerFileError, type TokenizerSource } from '@teapot/tokenizer';

/**
 * Measurement options from a run's stored snapshot; throws InvalidSnapshotError naming a bad field,
 * TokenizerFileError when its tokenizer cannot be read under `tokenizerDir` (TEAPOT_TOKENIZER_DIR).
 */
export function runOptionsFromSnapshot(value: unknown, target: Target, tokenizerDir?: string): RunOptions {
  const snapshot = parseProfileSnapshot(value);
  const options = runOptionsOf(snapshot, target);
  if (snapshot.tokenizer !== null) options.tokenizer = tokenizerOf(snapshot.tokenizer, tokenizerDir);
  return options;
}

/** The profile's tokenizer file, read at run time: the directory is this worker's, not the API's. */
function tokenizerOf(name: string, dir: string | undefined): TokenizerSource {
  if (dir === undefined) {
    throw new TokenizerFileError(
      `the profile names tokenizer "${name}", but this worker has no TEAPOT_TOKENIZER_DIR to read it from`,
    );
  }
  return readTokenizerIn(dir, name);
}

export function runOptionsOf(snapshot: ProfileSnapshot, target: Target): RunOptions {
  return {
    target,
    workload: snapshot.workload,
    load: snapshot.load,
    ...(snapshot.requestCount != null ? { requests: snapshot.requestCount } : {}),
    ...(snapshot.durationS != null ? { durationS: snapshot.durationS } : {}),
    warmupRequests: snapshot.warmupRequests,
    ...(snapshot.seed != null ? { seed: snapshot.seed } : {}),
    timeoutMs: snapshot.timeoutMs,
    stallTimeoutMs: snapshot.stallTimeoutMs,
    forceOutputLength: snapshot.forceOutputLength,
    transport: snapshot.transport,
    ...(Object.keys(snapshot.slo).length > 0 ? { slo: snapshot.slo } : {}),
  };
}
