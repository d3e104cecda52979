/**
 * Prometheus exposition, written the way Python's prometheus_client (which vLLM uses) writes it: text
 * format 0.0.4 by default, OpenMetrics 1.0.0 when the scraper asks for it in Accept. The differences
 * that matter: a counter family is named with `_total` in 0.0.4's HELP and TYPE lines and without it
 * in OpenMetrics, and OpenMetrics ends with `# EOF`.
 */
export type Labels = ReadonlyArray<readonly [string, string]>;

export interface Sample {
  labels: Labels;
  value: number;
}

export type Family =
  | { kind: 'gauge' | 'counter'; name: string; help: string; samples: Sample[] }
  | { kind: 'histogram'; name: string; help: string; labels: Labels; histogram: Histogram };

export const TEXT_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
export const OPENMETRICS_CONTENT_TYPE = 'application/openmetrics-text; version=1.0.0; charset=utf-8';

/** Cumulative-on-render histogram: per-bucket counts kept, so observing is a short scan and two adds. */
export class Histogram {
  private readonly counts: Float64Array;
  private sum = 0;
  private count = 0;

  constructor(readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    let i = 0;
    while (i < this.bounds.length && value > this.bounds[i]) i++;
    this.counts[i]++;
    this.sum += value;
    this.count++;
  }

  /** Cumulative counts per upper bound, +Inf last (equal to the count). */
  cumulative(): Array<[number, number]> {
    const out: Array<[number, number]> = [];
    let running = 0;
    for (let i = 0; i <= this.bounds.length; i++) {
      running += this.counts[i];
      out.push([i < this.bounds.length ? this.bounds[i] : Infinity, running]);
    }
    return out;
  }

  get total(): { sum: number; count: number } {
    return { sum: this.sum, count: this.count };
  }
}

/** The exposition of these families in the format the Accept header asks for. */
export function expose(
  families: Family[],
  accept: string | undefined,
): { contentType: string; body: string } {
  const openMetrics = (accept ?? '').includes('application/openmetrics-text');
  const lines: string[] = [];
  for (const family of families) {
    const familyName = family.kind === 'counter' && !openMetrics ? `${family.name}_total` : family.name;
    lines.push(`# HELP ${familyName} ${escapeHelp(family.help)}`, `# TYPE ${familyName} ${family.kind}`);
    if (family.kind === 'histogram') {
      for (const [bound, count] of family.histogram.cumulative()) {
        lines.push(sample(`${family.name}_bucket`, [...family.labels, ['le', number(bound)]], count));
      }
      const { sum, count } = family.histogram.total;
      lines.push(sample(`${family.name}_count`, family.labels, count));
      lines.push(sample(`${family.name}_sum`, family.labels, sum));
      continue;
    }
    const suffix = family.kind === 'counter' ? '_total' : '';
    for (const s of family.samples) lines.push(sample(family.name + suffix, s.labels, s.value));
  }
  if (openMetrics) lines.push('# EOF');
  return {
    contentType: openMetrics ? OPENMETRICS_CONTENT_TYPE : TEXT_CONTENT_TYPE,
    body: lines.join('\n') + '\n',
  };
}

function sample(name: string, labels: Labels, value: number): string {
  if (labels.length === 0) return `${name} ${number(value)}`;
  const text = labels.map(([key, v]) => `${key}="${escapeLabel(v)}"`).join(',');
  return `${name}{${text}} ${number(value)}`;
}

/** Python's float repr, as prometheus_client prints values and bounds: 3.0, 0.25, +Inf. */
function number(value: number): string {
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  if (Number.isNaN(value)) return 'NaN';
  return Number.isInteger(value) && Math.abs(value) < 1e16 ? value.toFixed(1) : String(value);
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function escapeHelp(help: string): string {
  return help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}
