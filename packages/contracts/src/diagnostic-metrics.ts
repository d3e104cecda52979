import type { ClientDiagnostics, ServerDiagnostics } from './diagnostics';

/**
 * The diagnostics the metric catalogue offers as run-level scalars (kind `diagnostic`): one value per
 * run, read from `runs.client_diagnostics` or `runs.server_diagnostics`. Over several runs (a trend
 * point, a comparison side) they are the mean of the runs that have the value; a run without it is
 * left out, never counted as zero.
 *
 * `practical` is the smallest change an explanation reports (both parts when both are set): `absolute`
 * in the metric's unit, `relative` as a share of the baseline's mean. Server figures come first: an
 * explanation lists the server's mechanisms before what the per-token record shows of them.
 */
export type DiagnosticSource =
  { source: 'client'; field: keyof ClientDiagnostics } | { source: 'server'; field: keyof ServerDiagnostics };

export interface DiagnosticDeclaration {
  kind: 'diagnostic';
  label: string;
  unit: string;
  weighting: 'run';
  direction: 'lower-is-better' | 'higher-is-better';
  description: string;
  headline: readonly [];
  diagnostic: DiagnosticSource;
  practical: { absolute?: number; relative?: number };
}

function declare(
  diagnostic: DiagnosticSource,
  label: string,
  unit: string,
  direction: DiagnosticDeclaration['direction'],
  practical: DiagnosticDeclaration['practical'],
  description: string,
): DiagnosticDeclaration {
  return {
    kind: 'diagnostic',
    label,
    unit,
    weighting: 'run',
    direction,
    description,
    headline: [],
    diagnostic,
    practical,
  };
}

const client = (field: keyof ClientDiagnostics): DiagnosticSource => ({ source: 'client', field });
const server = (field: keyof ServerDiagnostics): DiagnosticSource => ({ source: 'server', field });
const LOWER = 'lower-is-better';
const HIGHER = 'higher-is-better';

export const DIAGNOSTIC_DECLARATIONS = {
  preemptions: declare(
    server('preemptions'),
    'preemptions',
    'preemptions',
    LOWER,
    { absolute: 1, relative: 0.5 },
    "Requests the server preempted during the run (its counter's increase).",
  ),
  kv_cache_usage_max: declare(
    server('kvCacheUsageMax'),
    'KV-cache usage (max)',
    'fraction',
    LOWER,
    { absolute: 0.1 },
    "Highest share of the server's KV cache in use over the run's scrapes.",
  ),
  kv_cache_usage_mean: declare(
    server('kvCacheUsageMean'),
    'KV-cache usage',
    'fraction',
    LOWER,
    { absolute: 0.1 },
    "Mean share of the server's KV cache in use over the run's scrapes.",
  ),
  waiting_max: declare(
    server('waitingMax'),
    'waiting requests (max)',
    'requests',
    LOWER,
    { absolute: 2, relative: 0.5 },
    'Most requests the server kept waiting at one scrape.',
  ),
  prefix_cache_hit_rate: declare(
    server('prefixCacheHitRate'),
    'prefix-cache hit rate',
    'fraction',
    HIGHER,
    { absolute: 0.1 },
    'Prefix-cache hits over queries during the run, in tokens (server).',
  ),
  spec_decode_acceptance: declare(
    server('specDecodeAcceptanceRate'),
    'spec-decode acceptance',
    'fraction',
    HIGHER,
    { absolute: 0.1 },
    'Speculative decoding: accepted over drafted tokens during the run (server).',
  ),
  spec_decode_accepted_length: declare(
    server('specDecodeMeanAcceptedLength'),
    'spec-decode accepted length',
    'tokens',
    HIGHER,
    { absolute: 0.25, relative: 0.1 },
    'Speculative decoding: tokens per verification step, 1 + accepted / drafts (server).',
  ),
  server_ttft_p99_ms: declare(
    server('serverTtftP99Ms'),
    'server TTFT P99',
    'ms',
    LOWER,
    { relative: 0.25 },
    "The server's own P99 TTFT over the run, from its histogram's increase.",
  ),
  server_itl_p99_ms: declare(
    server('serverItlP99Ms'),
    'server ITL P99',
    'ms',
    LOWER,
    { relative: 0.25 },
    "The server's own P99 inter-token latency over the run, from its histogram's increase.",
  ),
  tokens_per_chunk: declare(
    client('tokensPerChunkMean'),
    'tokens per chunk',
    'tokens',
    HIGHER,
    { absolute: 0.25, relative: 0.1 },
    'Mean output tokens per token-carrying chunk, from per-chunk usage counts (client).',
  ),
  accepted_length_estimate: declare(
    client('acceptedLengthEstimate'),
    'accepted length (estimate)',
    'tokens',
    HIGHER,
    { absolute: 0.25, relative: 0.1 },
    'Mean tokens per mid-stream chunk when the server bundles tokens: a speculative-decoding server streams accepted tokens in one chunk (client).',
  ),
  late_token_share: declare(
    client('lateTokenShare'),
    'late tokens',
    'fraction',
    LOWER,
    { absolute: 0.02, relative: 0.5 },
    "Share of tokens later than TTFT + n x target TPOT (the TPOT SLO, else the run's median), slack carried forward (client).",
  ),
  long_gaps: declare(
    client('longGaps'),
    'long gaps',
    'gaps',
    LOWER,
    { absolute: 1, relative: 0.5 },
    "Gaps between token chunks over 5x the run's median ITL (client).",
  ),
  itl_p99_during_prefill_ms: declare(
    client('itlP99DuringPrefillMs'),
    'ITL P99 during prefills',
    'ms',
    LOWER,
    { relative: 0.25 },
    "P99 ITL of tokens whose gap overlapped another request's prefill (client).",
  ),
  itl_p99_outside_prefill_ms: declare(
    client('itlP99OutsidePrefillMs'),
    'ITL P99 outside prefills',
    'ms',
    LOWER,
    { relative: 0.25 },
    "P99 ITL of tokens whose gap overlapped no other request's prefill (client).",
  ),
} as const satisfies Record<string, DiagnosticDeclaration>;

/** A run's value of a diagnostic: a finite number its stored diagnostics hold, else null. */
export function diagnosticValue(
  source: DiagnosticSource,
  diagnostics: { client: unknown; server: unknown },
): number | null {
  const stored = source.source === 'client' ? diagnostics.client : diagnostics.server;
  if (!stored || typeof stored !== 'object') return null;
  const value = (stored as Record<string, unknown>)[source.field];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}
