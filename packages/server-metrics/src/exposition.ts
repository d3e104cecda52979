import parsePrometheusTextFormat from 'parse-prometheus-text-format';

/** One sample line of an exposition: `name{labels} value [timestamp]`. */
export interface Sample {
  name: string;
  labels: Readonly<Record<string, string>>;
  /** NaN, +Infinity and -Infinity as the format writes them (`NaN`, `+Inf`, `-Inf`). */
  value: number;
  /** The sample's own timestamp when it has one (ms in the Prometheus format); unused by the derivation. */
  timestampMs?: number;
}

/** The body is not the Prometheus text format (or not all of it): the scrape counts as failed. */
export class ExpositionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExpositionError';
  }
}

const METADATA_PREFIX = '# TYPE ';
const EOF_LINE = '# EOF';

/**
 * Every sample of a Prometheus text-format (0.0.4) or OpenMetrics text exposition, as a flat list.
 * Sample lines are parsed by parse-prometheus-text-format (a state machine ported from the official
 * Python client: label escapes, exponents, timestamps); this layer adds what it lacks (README.md,
 * "The parser"): histogram and summary families are handed to it without their `# TYPE` line, because
 * its prom2json-style grouping of those keeps only label-less samples (every vLLM histogram has
 * labels); the body gets a final newline (it drops a last line without one); `# EOF` ends the body;
 * values are read as numbers, `+Inf`/`-Inf`/`NaN` included; and a body with a line that is not a
 * sample (a name with characters the format forbids, a value that is no number) is refused whole,
 * where the library would return the rest silently.
 */
export function parseExposition(text: string): Sample[] {
  const kept: string[] = [];
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === EOF_LINE) break;
    if (trimmed.startsWith(METADATA_PREFIX)) continue;
    kept.push(line);
  }
  let families: ReturnType<typeof parsePrometheusTextFormat>;
  try {
    families = parsePrometheusTextFormat(`${kept.join('\n')}\n`);
  } catch (error) {
    throw new ExpositionError(`invalid exposition text: ${(error as Error).message.slice(0, 200)}`);
  }
  const samples: Sample[] = [];
  for (const family of families) {
    for (const metric of family.metrics) {
      const name = family.name;
      if (!isMetricName(name))
        throw new ExpositionError(`invalid exposition text: "${clip(name)}" is no metric name`);
      const value = parseValue(metric.value);
      if (value === null) {
        throw new ExpositionError(
          `invalid exposition text: ${clip(name)} has the value "${clip(metric.value ?? '')}"`,
        );
      }
      const sample: Sample = { name, labels: metric.labels ?? {}, value };
      if (metric.timestamp_ms !== undefined) sample.timestampMs = Number(metric.timestamp_ms);
      samples.push(sample);
    }
  }
  return samples;
}

/** A sample value as the format writes it; null when it is none. */
export function parseValue(text: string | undefined): number | null {
  switch (text) {
    case undefined:
    case '':
      return null;
    case '+Inf':
    case 'Inf':
      return Infinity;
    case '-Inf':
      return -Infinity;
    case 'NaN':
      return NaN;
  }
  const value = Number(text);
  // Number() reads "0x1A", " 1" and "Infinity", none of which the format writes; NaN here is garbage.
  if (Number.isNaN(value) || text.startsWith('0x') || text.includes('Infinity')) return null;
  return value;
}

/** `[a-zA-Z_:][a-zA-Z0-9_:]*`, the format's metric names. */
function isMetricName(name: string): boolean {
  if (name.length === 0) return false;
  for (let index = 0; index < name.length; index++) {
    const code = name.charCodeAt(index);
    const letter = (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 58;
    const digit = code >= 48 && code <= 57;
    if (!letter && !(digit && index > 0)) return false;
  }
  return true;
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}...` : text;
}
