import {
  DATASET_FORMATS,
  DEFAULT_TRANSPORT,
  TRANSPORTS,
  type Load,
  type ProfileTokenizer,
  type ProfileWorkload,
  type Slo,
} from '@teapot/run-definitions';
import { z } from 'zod';
import { sweepSpecSchema } from './sweeps';

const positiveInt = z.number().int().positive();
const positive = z.number().positive();

const thinkTimeSchema = z.object({
  distribution: z.enum(['constant', 'exponential']),
  meanMs: z.number().min(0),
});
const sessionOptions = { thinkTime: thinkTimeSchema.optional(), actualAnswers: z.boolean().optional() };
const datasetFilters = {
  minInputTokens: positiveInt.optional(),
  maxInputTokens: positiveInt.optional(),
  maxOutputTokens: positiveInt.optional(),
  maxTurns: positiveInt.optional(),
  sample: positiveInt.optional(),
  sampleSeed: z.number().int().min(0).optional(),
};

/** A path under the worker's TEAPOT_TOKENIZER_DIR, or an uploaded tokenizer.json by SHA-256. */
const tokenizerSchema: z.ZodType<ProfileTokenizer> = z.union([
  z.string().min(1),
  z.strictObject({ sha256: z.string().regex(/^[0-9a-f]{64}$/) }),
]);

/** A profile's workload; `dataset-asset` and `trace-asset` name an uploaded file, read when the run is measured. */
const workloadSchema: z.ZodType<ProfileWorkload> = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('synthetic'),
    inputTokens: positiveInt,
    outputTokens: positiveInt,
    lengthJitter: z.number().min(0).optional(),
  }),
  z.object({
    kind: z.literal('dataset'),
    prompts: z.array(z.object({ prompt: z.string(), outputTokens: positiveInt.optional() })).min(1),
    outputTokens: positiveInt.optional(),
  }),
  z.object({
    kind: z.literal('multi-turn'),
    turns: positiveInt,
    inputTokens: positiveInt,
    outputTokens: positiveInt,
    lengthJitter: z.number().min(0).optional(),
    systemTokens: z.number().int().min(0).optional(),
    ...sessionOptions,
  }),
  z.object({
    kind: z.literal('shared-prefix'),
    prefixes: positiveInt,
    prefixTokens: positiveInt,
    requestsPerPrefix: positiveInt,
    suffixTokens: positiveInt,
    outputTokens: positiveInt,
  }),
  z.object({
    kind: z.literal('dataset-asset'),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    format: z.enum(DATASET_FORMATS),
    outputTokens: positiveInt.optional(),
    ...datasetFilters,
    ...sessionOptions,
  }),
  z.object({
    kind: z.literal('trace-asset'),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    speed: positive.optional(),
  }),
]);

const loadSchema: z.ZodType<Load> = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('closed'), concurrency: positiveInt }),
  z.object({
    kind: z.literal('open'),
    ratePerS: positive,
    arrival: z.enum(['poisson', 'gamma', 'constant']),
    burstiness: positive.optional(),
    maxConcurrency: positiveInt.optional(),
    busyPoll: z.boolean().optional(),
  }),
]);

const sloSchema: z.ZodType<Slo> = z.object({
  ttftMs: positive.optional(),
  tpotMs: positive.optional(),
  itlMs: positive.optional(),
  e2eMs: positive.optional(),
});

/**
 * `runs.profile_snapshot`: the profile as it was when the run was queued, in Profile field names.
 * Every Profile column is here except those in PROFILE_FIELDS_NOT_SNAPSHOTTED (a db test checks it).
 * Unknown keys are dropped when read, so snapshots written before a field was retired still parse.
 */
export const profileSnapshotSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    endpointId: z.string(),
    workload: workloadSchema,
    load: loadSchema,
    requestCount: positiveInt.nullable(),
    durationS: positiveInt.nullable(),
    warmupRequests: z.number().int().min(0),
    seed: z.number().int().nullable(),
    timeoutMs: positiveInt,
    stallTimeoutMs: positiveInt,
    forceOutputLength: z.boolean(),
    // snapshots queued before profiles had a transport read as the default
    transport: z.enum(TRANSPORTS).default(DEFAULT_TRANSPORT),
    // snapshots queued before profiles had one read as none
    tokenizer: tokenizerSchema.nullable().default(null),
    slo: sloSchema,
    scheduleCron: z.string().nullable(),
    scheduleIntervalS: positiveInt.nullable(),
    scheduleJitterS: z.number().int().min(0),
    // a sweep profile's SweepSpec; snapshots queued before profiles could sweep read as single-load
    sweep: sweepSpecSchema.nullable().default(null),
  })
  .refine(
    (snapshot) =>
      snapshot.requestCount !== null ||
      snapshot.durationS !== null ||
      snapshot.workload.kind === 'trace-asset',
    {
      message:
        'needs a requestCount or a durationS: a run needs an end (a trace-asset ends with its last line)',
      path: ['requestCount'],
    },
  );

export type ProfileSnapshot = z.output<typeof profileSnapshotSchema>;

/** The Profile fields a snapshot keeps: the schema's keys, so the list is written once. */
export const PROFILE_SNAPSHOT_FIELDS = Object.keys(
  profileSnapshotSchema.shape,
) as readonly (keyof ProfileSnapshot)[];

/**
 * Profile columns a run does not depend on: bookkeeping of the row, not of the measurement, and how
 * runs are judged afterwards (comparison thresholds apply as the profile sets them now).
 */
export const PROFILE_FIELDS_NOT_SNAPSHOTTED = [
  'enabled',
  'createdAt',
  'updatedAt',
  'comparisonThresholds',
] as const;

/** A Profile row as Prisma returns it (the Json columns untyped); what snapshotOf reads. */
export type ProfileRow = { [K in keyof ProfileSnapshot]: unknown };

/** A snapshot the worker cannot run: the run fails with this message, the worker carries on. */
export class InvalidSnapshotError extends Error {
  override readonly name = 'InvalidSnapshotError';
}

/**
 * The snapshot a run is queued with (manual, scheduled, seeded by tests and benches): the profile's
 * snapshot fields, as stored. Not validated here: a profile the worker cannot run still gets its run,
 * which then fails saying why (parseProfileSnapshot), instead of silently never running.
 */
export function snapshotOf<P extends ProfileRow>(profile: P): Pick<P, keyof ProfileSnapshot> {
  const snapshot = {} as Pick<P, keyof ProfileSnapshot>;
  for (const field of PROFILE_SNAPSHOT_FIELDS) snapshot[field] = profile[field];
  return snapshot;
}

/** Reads `runs.profile_snapshot` back, checking every field; throws InvalidSnapshotError naming the first bad one. */
export function parseProfileSnapshot(value: unknown): ProfileSnapshot {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidSnapshotError('the run has no profile snapshot');
  }
  const parsed = profileSnapshotSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  throw new InvalidSnapshotError(`profile snapshot: ${where}${issue.message}`);
}
