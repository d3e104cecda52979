import type { Random } from './rng';

export const FAULT_MODES = [
  'refuse',
  '500',
  '429',
  'stall',
  'malformed',
  'truncate',
  'error-event',
  'reject-stream-options',
] as const;
export type FaultMode = (typeof FAULT_MODES)[number];

/** Faults that happen after some tokens were streamed; the others answer before any token. */
export const MID_STREAM_FAULTS: ReadonlySet<FaultMode> = new Set([
  'stall',
  'malformed',
  'truncate',
  'error-event',
]);

export const DEFAULT_FAULT_AFTER_TOKENS = 2;

export interface FaultOptions {
  mode: FaultMode;
  /** Probability that a request gets the fault, 0..1 (default 1: every request). */
  rate?: number;
  /** Tokens streamed before a mid-stream fault fires (default 2). */
  afterTokens?: number;
  /** Retry-After seconds sent with 429 (default 1). */
  retryAfterS?: number;
}

export interface FaultPlan {
  mode: FaultMode;
  afterTokens: number;
}

export function isFaultMode(value: string): value is FaultMode {
  return (FAULT_MODES as readonly string[]).includes(value);
}

export class FaultHeaderError extends Error {
  constructor(
    message: string,
    readonly header: string,
  ) {
    super(message);
  }
}

/**
 * The fault for one request: the `x-teapot-fault` header wins, else the simulator's fault with its
 * rate (drawn from the simulator's seeded stream), else none.
 */
export function planFault(
  headerMode: string | undefined,
  headerAfter: string | undefined,
  configured: FaultOptions | undefined,
  random: Random,
): FaultPlan | null {
  const after = parseAfter(headerAfter);
  if (headerMode !== undefined && headerMode !== '' && headerMode !== 'none') {
    if (!isFaultMode(headerMode)) {
      throw new FaultHeaderError(
        `x-teapot-fault must be one of ${FAULT_MODES.join(', ')} (or none), got "${headerMode}"`,
        'x-teapot-fault',
      );
    }
    return { mode: headerMode, afterTokens: after ?? configured?.afterTokens ?? DEFAULT_FAULT_AFTER_TOKENS };
  }
  if (headerMode === 'none' || configured === undefined) return null;
  const rate = configured.rate ?? 1;
  if (rate < 1 && random() >= rate) return null;
  return {
    mode: configured.mode,
    afterTokens: after ?? configured.afterTokens ?? DEFAULT_FAULT_AFTER_TOKENS,
  };
}

function parseAfter(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) {
    throw new FaultHeaderError(
      `x-teapot-fault-after must be a non-negative integer, got "${value}"`,
      'x-teapot-fault-after',
    );
  }
  return n;
}
