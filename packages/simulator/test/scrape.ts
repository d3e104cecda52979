import parsePrometheusTextFormat from 'parse-prometheus-text-format';

/** One scrape of the simulator's /metrics, parsed by a maintained Prometheus text parser. */
export interface Scrape {
  contentType: string;
  text: string;
  families: Map<string, ReturnType<typeof parsePrometheusTextFormat>[number]>;
}

export async function scrape(baseUrl: string, accept?: string): Promise<Scrape> {
  const response = await fetch(baseUrl.replace(/\/v1$/, '/metrics'), {
    headers: accept ? { accept } : {},
  });
  const text = await response.text();
  const families = new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family]));
  return { contentType: response.headers.get('content-type') ?? '', text, families };
}

/** The value of a counter or gauge sample (the first, or the one whose labels include `labels`). */
export function sampleValue(s: Scrape, name: string, labels: Record<string, string> = {}): number {
  const family = s.families.get(name);
  if (!family) throw new Error(`no ${name} in /metrics`);
  const sample = family.metrics.find((m) =>
    Object.entries(labels).every(([key, value]) => m.labels?.[key] === value),
  );
  if (!sample?.value) throw new Error(`no ${name} sample with ${JSON.stringify(labels)}`);
  return Number(sample.value);
}

/**
 * A histogram's cumulative buckets (upper bound -> count), count and sum. parse-prometheus-text-format
 * (1.1.1) drops the labels, _count and _sum of a histogram that has labels other than le (vLLM's all have
 * model_name and engine), so those two lines are parsed on their own, as untyped samples.
 */
export function histogram(
  s: Scrape,
  name: string,
): { buckets: Array<[number, number]>; count: number; sum: number; labels: Record<string, string> } {
  const sample = s.families.get(name)?.metrics[0];
  if (!sample?.buckets) throw new Error(`no histogram ${name} in /metrics`);
  const buckets = Object.entries(sample.buckets)
    .map(([le, count]): [number, number] => [le === '+Inf' ? Infinity : Number(le), Number(count)])
    .sort((a, b) => a[0] - b[0]);
  const totals = parsePrometheusTextFormat(
    s.text
      .split('\n')
      .filter((line) => line.startsWith(`${name}_count{`) || line.startsWith(`${name}_sum{`))
      .join('\n') + '\n',
  );
  const total = (suffix: string) => Number(totals.find((f) => f.name === name + suffix)?.metrics[0].value);
  const labels = totals.find((f) => f.name === `${name}_count`)?.metrics[0].labels ?? {};
  return { buckets, count: total('_count'), sum: total('_sum'), labels };
}
