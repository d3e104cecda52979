import { parseProfileSnapshot, type ProfileSnapshot } from '@teapot/contracts';
import { assetOf, measuredWorkload, type RunOptions, type Target } from '@teapot/measure';
import { readTokenizerIn, TokenizerFileError, type TokenizerSource } from '@teapot/tokenizer';

/** Where a run's files come from: uploads by SHA-256, and the worker's TEAPOT_TOKENIZER_DIR. */
export interface RunFiles {
  /** An uploaded dataset's or trace's bytes; null when none is stored. */
  upload(sha256: string): Promise<Buffer | null>;
  /** An uploaded tokenizer.json; throws TokenizerFileError when none is stored. */
  tokenizer(sha256: string): Promise<TokenizerSource>;
  tokenizerDir?: string;
}

/**
 * Measurement options from a run's stored snapshot; throws InvalidSnapshotError naming a bad field,
 * a DatasetError or TraceError when the dataset or trace the profile names cannot be read, TokenizerFileError
 * when its tokenizer cannot be read (under TEAPOT_TOKENIZER_DIR, or as an upload).
 */
export async function runOptionsFromSnapshot(
  value: unknown,
  target: Target,
  files: RunFiles,
): Promise<RunOptions> {
  const snapshot = parseProfileSnapshot(value);
  const { workload, tokenizer } = snapshot;
  const sha256 = assetOf(workload);
  const file = sha256 === null ? null : await files.upload(sha256);
  const options = runOptionsOf(snapshot, target, file?.toString('utf8') ?? null);
  if (tokenizer !== null) {
    options.tokenizer =
      typeof tokenizer === 'string'
        ? tokenizerIn(tokenizer, files.tokenizerDir)
        : await files.tokenizer(tokenizer.sha256);
  }
  return options;
}

/** The profile's tokenizer file, read at run time: the directory is this worker's, not the API's. */
function tokenizerIn(name: string, dir: string | undefined): TokenizerSource {
  if (dir === undefined) {
    throw new TokenizerFileError(
      `the profile names tokenizer "${name}", but this worker has no TEAPOT_TOKENIZER_DIR to read it from`,
    );
  }
  return readTokenizerIn(dir, name);
}

/** `datasetText`: the file a `dataset-asset` or `trace-asset` workload names (null for other workloads). */
export function runOptionsOf(
  snapshot: ProfileSnapshot,
  target: Target,
  datasetText: string | null = null,
): RunOptions {
  return {
    target,
    workload: measuredWorkload(snapshot.workload, snapshot.seed ?? 0, datasetText),
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
