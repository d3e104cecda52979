import { SATURATION, TRANSPORTS, type Transport } from '@teapot/measure';
import type { ClientName } from '@teapot/measure/accuracy';

/** The start of a run: chunks written within this long of its first write. */
export const START_WINDOW_MS = 500;

function isTransport(client: ClientName): client is Transport {
  return (TRANSPORTS as readonly string[]).includes(client);
}

export function label(client: ClientName): string {
  return isTransport(client) ? `teapot/${client}` : client;
}

/** One client process at one level, against the simulator's ground truth. */
export interface RepFigures {
  /** Token chunks compared with the simulator's ground truth. */
  chunks: number;
  /** Requests that failed plus streams whose chunks did not line up one to one with the ground truth. */
  lost: number;
  /** Arrival minus the simulator's writtenNs (just after its write returned). */
  p50: number;
  p99: number;
  max: number;
  /**
   * Share of chunks timestamped before writtenNs: on loopback the kernel hands the bytes to the reader
   * inside the simulator's write call, so a client on the other core can see them before that call returns.
   */
  early: number;
  /** P99 of |measured gap - written gap| over consecutive token chunks of a stream: the error an ITL carries. */
  gapP99: number;
  /** P99 added delay of the chunks written in the first START_WINDOW_MS of the run... */
  startP99: number | null;
  /** ...and of those written in the middle third of the run. */
  middleP99: number | null;
  /** Client CPU (user + system) per token chunk, us. */
  cpuUsPerChunk: number | null;
  loopP99: number | null;
  /** teapot's estimated P99 timestamp error and whether it flagged the run saturated; null for others. */
  saturation: { estimateP99Ms: number; flagged: boolean } | null;
  /** Median gap between the simulator's writes of consecutive token chunks: the decode step it ran at. */
  simStepMs: number | null;
  wallS: number;
}

/** Medians over the repetitions of one client at one level. */
export interface ClientFigures extends RepFigures {
  client: ClientName;
  streams: number;
  requests: number;
  /** P99 added delay of each repetition, in the order run. */
  p99s: number[];
  /** Each repetition's measured P99 with teapot's estimate and flag (teapot's clients only). */
  flags: Array<{ p99: number; estimateP99Ms: number; flagged: boolean }>;
}

export const ms = (value: number | null | undefined): string =>
  value == null || Number.isNaN(value) ? '-' : value.toFixed(3);

type Row = RepFigures & { client: ClientName; streams: number; requests: number; p99s?: number[] };

const COLUMNS: Array<[header: string, cell: (f: Row) => string]> = [
  ['streams', (f) => String(f.streams)],
  ['client', (f) => label(f.client)],
  ['chunks', (f) => String(f.chunks)],
  ['P50', (f) => ms(f.p50)],
  ['P99', (f) => ms(f.p99)],
  ['max', (f) => ms(f.max)],
  ['early', (f) => `${(100 * f.early).toFixed(1)}%`],
  ['gap P99', (f) => ms(f.gapP99)],
  ['start P99', (f) => ms(f.startP99)],
  ['mid P99', (f) => ms(f.middleP99)],
  ['cpu us', (f) => (f.cpuUsPerChunk === null ? '-' : f.cpuUsPerChunk.toFixed(1))],
  ['loop P99', (f) => ms(f.loopP99)],
  ['sim step', (f) => ms(f.simStepMs)],
  ['lost', (f) => String(f.lost)],
  ['P99 of each rep', (f) => (f.p99s ?? []).map((v) => v.toFixed(2)).join(' ')],
];

function formatCells(cells: string[]): string {
  return cells
    .map((cell, i) => (i === 1 ? cell.padEnd(14) : i === cells.length - 1 ? ` ${cell}` : cell.padStart(9)))
    .join(' ');
}

export function formatRow(f: Row): string {
  return formatCells(COLUMNS.map(([, cell]) => cell(f)));
}

export function renderTable(levels: number[], figures: ClientFigures[], reps: number): string {
  const lines = [
    '',
    `Added delay per token chunk, ms, median of ${reps} repetitions: client timestamp minus the simulator's writtenNs (P50, P99, max);`,
    'early: chunks timestamped before writtenNs (loopback delivers inside the write call; the figures can dip below 0);',
    `gap P99: |measured - written gap| of consecutive chunks; start P99: chunks written in the run's first ${START_WINDOW_MS} ms;`,
    "mid P99: chunks written in the run's middle third; cpu us: client CPU (user + system) per token chunk;",
    'loop: client event-loop delay; sim step: decode step P50; lost: failed or unmatched streams.',
    formatCells(COLUMNS.map(([header]) => header)),
  ];
  for (const streams of levels) {
    const rows = figures.filter((f) => f.streams === streams);
    for (const f of rows) lines.push(formatRow(f));
    const at = (name: ClientName) => rows.find((f) => f.client === name);
    const floor = at('node-floor');
    const cFloor = at('c-floor');
    const ratios = TRANSPORTS.filter((t) => at(t) !== undefined).map((t) => {
      const teapot = at(t)!;
      const parts = [`${(teapot.p99 / (floor?.p99 ?? NaN)).toFixed(1)}x node-floor`];
      if (cFloor) parts.push(`${(teapot.p99 / cFloor.p99).toFixed(1)}x c-floor`);
      for (const peer of ['aiohttp', 'baseline'] as const) {
        const p = at(peer);
        if (p) parts.push(`${peer}/teapot ${(p.p99 / teapot.p99).toFixed(1)}x`);
      }
      return `${label(t)}: ${parts.join(', ')}`;
    });
    lines.push(`${''.padStart(9)} P99 ${ratios.join('; ')}`);
  }
  return lines.join('\n') + '\n';
}

/**
 * The saturation flag against the ground truth (client-health.ts's SATURATION): per teapot client,
 * level and repetition, the measured P99 added delay, teapot's own estimate, and whether the flag
 * agreed with the measured P99 being over the bound.
 */
export function renderSaturation(figures: ClientFigures[]): string {
  const rows = figures.filter((f) => f.flags.length > 0);
  if (rows.length === 0) return '';
  let agreed = 0;
  let judged = 0;
  const lines = rows.map((f) => {
    const reps = f.flags.map(({ p99, estimateP99Ms, flagged }) => {
      judged++;
      const right = flagged === p99 > SATURATION.boundMs;
      if (right) agreed++;
      return `${p99.toFixed(1)}/${estimateP99Ms.toFixed(1)}${flagged ? ' flagged' : ''}${right ? '' : ' (wrong)'}`;
    });
    return `  ${label(f.client).padEnd(14)} ${String(f.streams).padStart(5)}: ${reps.join(', ')}`;
  });
  return (
    `\nsaturation flag (flagged when teapot's estimated P99 timestamp error is over ${SATURATION.boundMs} ms), ` +
    "per repetition: measured P99 added delay / teapot's estimate, ms:\n" +
    `${lines.join('\n')}\n  the flag agreed with the measured P99 in ${agreed} of ${judged} runs\n`
  );
}
