import type {
  ProfileWorkload,
  TraceFormat,
  TraceRequest,
  TraceSource,
  Workload,
} from '@teapot/run-definitions';

/** Limits of a trace, documented in packages/measure/README.md ("Traces"). */
export const TRACE_LIMITS = {
  /** The file, in bytes (the API's upload limit is the same). */
  bytes: 32 * 1024 * 1024,
  /** Requests in one trace. */
  lines: 200_000,
  /** One request's input or output length, in tokens. */
  tokens: 1_000_000,
  /** The replay speed factor's bounds. */
  minSpeed: 0.001,
  maxSpeed: 1000,
} as const;

/** A trace that cannot be read: `where` names the line and field. */
export class TraceError extends Error {
  constructor(
    readonly where: string,
    message: string,
  ) {
    super(`${where}: ${message}`);
  }
}

interface FormatFields {
  label: string;
  time: string;
  /** Milliseconds per unit of a numeric timestamp. */
  msPerUnit: number;
  input: string;
  output: string;
}

/** The field names of each accepted shape, the first (teapot's own) preferred when a line has several. */
const FORMATS: Record<TraceFormat, FormatFields> = {
  teapot: {
    label: 'teapot',
    time: 'timestamp_ms',
    msPerUnit: 1,
    input: 'input_tokens',
    output: 'output_tokens',
  },
  mooncake: {
    label: 'Mooncake',
    time: 'timestamp',
    msPerUnit: 1,
    input: 'input_length',
    output: 'output_length',
  },
  burstgpt: {
    label: 'BurstGPT',
    time: 'Timestamp',
    msPerUnit: 1000,
    input: 'Request tokens',
    output: 'Response tokens',
  },
  azure: {
    label: 'Azure',
    time: 'TIMESTAMP',
    msPerUnit: 1000,
    input: 'ContextTokens',
    output: 'GeneratedTokens',
  },
};
const FORMAT_NAMES = Object.keys(FORMATS) as TraceFormat[];

/** `2023-11-16 18:15:46.6805900`, `2023-11-16T18:15:46Z`, `...+01:00`: a datetime without a zone is UTC. */
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * A recognised datetime: whole milliseconds since the epoch, and the fraction of a millisecond apart
 * (added to the epoch's 1.7e12 ms, a double keeps only 0.2 us of it); null otherwise.
 */
function datetimeMs(text: string): { wholeMs: number; fractionMs: number } | null {
  const m = DATETIME.exec(text.trim());
  if (m === null) return null;
  const [, y, mo, d, h, mi, s, fraction, zone] = m;
  let ms = Date.UTC(+y, +mo - 1, +d, +h, +mi, +s);
  // Date.UTC rolls an impossible date (month 13, Feb 30) over: recognise only the real ones
  const back = new Date(ms);
  if (back.getUTCFullYear() !== +y || back.getUTCMonth() !== +mo - 1 || back.getUTCDate() !== +d) return null;
  if (+h > 23 || +mi > 59 || +s > 59) return null;
  const subSecondMs = fraction === undefined ? 0 : Number(`0.${fraction}`) * 1000;
  ms += Math.floor(subSecondMs);
  if (zone !== undefined && zone !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    ms -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
  }
  return { wholeMs: ms, fractionMs: subSecondMs - Math.floor(subSecondMs) };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function formatOf(row: Record<string, unknown>, where: string, csv = false): TraceFormat {
  const format = FORMAT_NAMES.find((name) => FORMATS[name].input in row);
  if (format !== undefined) return format;
  const shapes = FORMAT_NAMES.map((name) => {
    const f = FORMATS[name];
    return `${f.label} {${[f.time, f.input, f.output].map((k) => JSON.stringify(k)).join(',')}}`;
  });
  const what = csv
    ? 'neither a JSON object nor a CSV header naming the columns'
    : 'not a known trace line: expected the fields';
  throw new TraceError(where, `${what} of ${shapes.join(', ')}`);
}

function lengthOf(row: Record<string, unknown>, field: string, where: string): number {
  const value = row[field];
  if (value === undefined) throw new TraceError(where, `"${field}" is missing`);
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
    throw new TraceError(where, `"${field}" must be a positive integer, got ${JSON.stringify(value)}`);
  if (value > TRACE_LIMITS.tokens)
    throw new TraceError(where, `"${field}" is ${value}, over the limit of ${TRACE_LIMITS.tokens} tokens`);
  return value;
}

/**
 * A line's time in ms: a number in the format's unit, or a recognised datetime (ms after `originMs`,
 * the first line's whole ms; null on the first line); one kind for the whole file.
 */
function timeOf(
  row: Record<string, unknown>,
  fields: FormatFields,
  where: string,
  datetimes: boolean | null,
  originMs: number | null,
) {
  const value = row[fields.time];
  if (value === undefined) throw new TraceError(where, `"${fields.time}" is missing`);
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) {
    if (datetimes === true)
      throw new TraceError(where, `"${fields.time}" is a number, but the first line's is a datetime`);
    return { ms: value * fields.msPerUnit, datetime: false, wholeMs: 0 };
  }
  const parsed = typeof value === 'string' ? datetimeMs(value) : null;
  if (parsed === null)
    throw new TraceError(
      where,
      `"${fields.time}" must be a number >= 0 (${fields.msPerUnit === 1 ? 'milliseconds' : 'seconds'}) or a ` +
        `datetime like 2024-05-01 12:00:00.250 (UTC unless it names a zone), got ${JSON.stringify(value)}`,
    );
  if (datetimes === false)
    throw new TraceError(where, `"${fields.time}" is a datetime, but the first line's is a number`);
  const ms = parsed.wholeMs - (originMs ?? parsed.wholeMs) + parsed.fractionMs;
  return { ms, datetime: true, wholeMs: parsed.wholeMs };
}

/** A CSV number as a number (a length or a timestamp in seconds); anything else stays text. */
const CSV_NUMBER = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** One CSV record's fields (RFC 4180: quoted fields, "" inside them); a line holds one record. */
function csvFields(line: string, where: string): string[] {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    let field = '';
    if (line[i] === '"') {
      for (i++; ; i++) {
        if (i >= line.length) throw new TraceError(where, 'a quoted field is not closed');
        if (line[i] !== '"') field += line[i];
        else if (line[i + 1] === '"') field += line[i++];
        else break;
      }
      i++;
      if (i < line.length && line[i] !== ',') throw new TraceError(where, 'text after a quoted field');
    } else {
      const end = line.indexOf(',', i);
      field = line.slice(i, end < 0 ? line.length : end);
      i = end < 0 ? line.length : end;
    }
    fields.push(field.trim());
    if (i >= line.length) return fields;
    i++;
  }
}

/**
 * A trace line as an object: JSON, or a CSV record keyed by the header's column names (BurstGPT's and
 * Azure's published files are CSV). Null for the CSV header itself.
 */
type LineReader = (line: string, where: string) => Record<string, unknown> | null;

function jsonLine(line: string, where: string): Record<string, unknown> {
  let row: unknown;
  try {
    row = JSON.parse(line);
  } catch (err) {
    throw new TraceError(where, `not valid JSON (${(err as Error).message})`);
  }
  if (!isObject(row)) throw new TraceError(where, 'expected an object');
  return row;
}

function csvReader(): LineReader {
  let header: string[] | null = null;
  return (line, where) => {
    const fields = csvFields(line, where);
    if (header === null) {
      formatOf(Object.fromEntries(fields.map((name) => [name, true])), where, true);
      header = fields;
      return null;
    }
    if (fields.length !== header.length)
      throw new TraceError(where, `${fields.length} fields, but the header names ${header.length}`);
    const row: Record<string, unknown> = {};
    header.forEach((name, k) => (row[name] = CSV_NUMBER.test(fields[k]) ? Number(fields[k]) : fields[k]));
    return row;
  };
}

/**
 * The requests of a trace, arrival times relative to its first request: JSON lines, or CSV with a
 * header row (a first line that is not a JSON object). The first request's fields decide the format
 * (FORMATS); every line must then have that format's fields, in time order. Throws a TraceError naming
 * the line and field of the first thing that does not fit.
 */
export function parseTrace(text: string): { format: TraceFormat; requests: TraceRequest[] } {
  if (text.length > TRACE_LIMITS.bytes)
    throw new TraceError('file', `${text.length} characters, over the limit of ${TRACE_LIMITS.bytes} bytes`);
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  const requests: TraceRequest[] = [];
  let read: LineReader | null = null;
  let format: TraceFormat | null = null;
  let datetimes: boolean | null = null;
  let firstMs = 0;
  let originMs: number | null = null;
  let previousMs = -Infinity;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    const where = `line ${i + 1}`;
    if (requests.length >= TRACE_LIMITS.lines)
      throw new TraceError(where, `more than ${TRACE_LIMITS.lines} requests, the limit of one trace`);
    read ??= line.startsWith('{') ? jsonLine : csvReader();
    const row = read(line, where);
    if (row === null) continue;
    format ??= formatOf(row, where);
    const fields = FORMATS[format];
    const time = timeOf(row, fields, where, datetimes, originMs);
    datetimes = time.datetime;
    if (requests.length === 0) {
      firstMs = time.ms;
      originMs = time.wholeMs;
    }
    if (time.ms < previousMs)
      throw new TraceError(
        where,
        `"${fields.time}" is earlier than the line before it: a trace must be in time order`,
      );
    previousMs = time.ms;
    requests.push({
      atMs: time.ms - firstMs,
      inputTokens: lengthOf(row, fields.input, where),
      outputTokens: lengthOf(row, fields.output, where),
    });
  }
  if (format === null) throw new TraceError('file', 'no requests: the trace is empty');
  return { format, requests };
}

export function checkTraceSpeed(speed: number, field: string): void {
  if (!(speed >= TRACE_LIMITS.minSpeed && speed <= TRACE_LIMITS.maxSpeed))
    throw new TraceError(
      field,
      `must be a number from ${TRACE_LIMITS.minSpeed} to ${TRACE_LIMITS.maxSpeed}, got ${speed}`,
    );
}

/** A trace file read into the workload that replays it at `speed`. */
export function loadTrace(text: string, options: { sha256: string; speed?: number }): Workload {
  const speed = options.speed ?? 1;
  checkTraceSpeed(speed, 'speed');
  const { format, requests } = parseTrace(text);
  const spanS = requests[requests.length - 1].atMs / 1000;
  const source: TraceSource = { sha256: options.sha256, format, lines: requests.length, spanS, speed };
  return { kind: 'trace', requests, speed, source };
}

/** The run's workload from a profile's `trace-asset` (`text`: the stored file; null when none is). */
export function traceFromAsset(
  workload: Extract<ProfileWorkload, { kind: 'trace-asset' }>,
  text: string | null,
): Workload {
  if (text === null) throw new TraceError('workload.sha256', `trace ${workload.sha256} is not stored`);
  return loadTrace(text, { sha256: workload.sha256, speed: workload.speed });
}
