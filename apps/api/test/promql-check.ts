import { parser } from '@prometheus-io/lezer-promql';

/** The series of one exported metric name: each label and the values it takes. */
export type ExportedMetrics = Map<string, Map<string, Set<string>>>;

/** Every sample name in a Prometheus text exposition, with its labels and their values. */
export function exportedMetrics(exposition: string): ExportedMetrics {
  const metrics: ExportedMetrics = new Map();
  for (const line of exposition.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? \S+$/.exec(line);
    if (!match) throw new Error(`not an exposition line: ${line}`);
    const labels = metrics.get(match[1]) ?? new Map<string, Set<string>>();
    metrics.set(match[1], labels);
    for (const [, name, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      labels.set(name, (labels.get(name) ?? new Set()).add(value));
  }
  return metrics;
}

/** Stands for a Grafana variable in a query: values holding it are not checked against the series. */
const TEMPLATED = '__grafana_variable__';

/**
 * A Grafana query as PromQL: `$__range`-like built-ins become a duration, other variables (`$endpoint`,
 * `${datasource}`) a marker that label checks skip.
 */
export function withoutVariables(query: string): string {
  return query.replace(/\$__\w+/g, '5m').replace(/\$\{?\w+\}?/g, TEMPLATED);
}

/**
 * What is wrong with a PromQL query against the metrics a teapot exports: parse errors, metric names
 * it does not export, label names its series lack, equality matchers no series satisfies, and grouping
 * (by, on, ignoring, group_left...) by a label none of the query's metrics has. Empty when all is well.
 */
export function promqlProblems(query: string, metrics: ExportedMetrics): string[] {
  const expr = withoutVariables(query);
  const text = (node: { from: number; to: number }) => expr.slice(node.from, node.to);
  const problems: string[] = [];
  const labelsInUse = new Set<string>();
  const grouping: string[] = [];
  parser.parse(expr).iterate({
    enter: (ref) => {
      if (ref.type.isError)
        problems.push(`does not parse at ${ref.from}: ${JSON.stringify(expr.slice(ref.from))}`);
      if (ref.name === 'GroupingLabels')
        for (const label of ref.node.getChildren('LabelName')) grouping.push(text(label));
      if (ref.name !== 'VectorSelector') return;
      const identifier = ref.node.getChild('Identifier');
      if (!identifier) {
        problems.push(`selects no metric by name: ${text(ref)}`);
        return;
      }
      const name = text(identifier);
      const series = metrics.get(name);
      if (!series) {
        problems.push(`names ${name}, which teapot does not export`);
        return;
      }
      for (const label of series.keys()) labelsInUse.add(label);
      for (const matcher of ref.node.getChild('LabelMatchers')?.getChildren('UnquotedLabelMatcher') ?? []) {
        const label = text(matcher.getChild('LabelName')!);
        const op = text(matcher.getChild('MatchOp')!);
        const value = JSON.parse(text(matcher.getChild('StringLiteral')!)) as string;
        const values = series.get(label);
        if (!values) problems.push(`${name} has no label ${label}`);
        else if (op === '=' && !value.includes(TEMPLATED) && !values.has(value))
          problems.push(`no ${name} series has ${label}="${value}"`);
      }
    },
  });
  for (const label of grouping)
    if (!labelsInUse.has(label)) problems.push(`groups by ${label}, which none of its metrics has`);
  return problems;
}
