import { exportedMetrics, promqlProblems } from './promql-check';

// The checker the Grafana dashboard test relies on: it must catch each kind of mistake.
const metrics = exportedMetrics(
  [
    '# TYPE teapot_latest_itl_seconds gauge',
    'teapot_latest_itl_seconds{endpoint="a",statistic="p99"} 0.005',
    'teapot_latest_deployment_verdict{deployment_id="d",verdict="regressed"} 1',
  ].join('\n'),
);

describe('promqlProblems', () => {
  it('accepts a query over exported names and labels, with Grafana variables', () => {
    expect(
      promqlProblems(
        'max by (endpoint) (teapot_latest_itl_seconds{statistic="p99", endpoint=~"$endpoint"}) * on (deployment_id) group_left (verdict) teapot_latest_deployment_verdict',
        metrics,
      ),
    ).toEqual([]);
  });

  it.each([
    ['teapot_latest_itl_second', 'names teapot_latest_itl_second, which teapot does not export'],
    ['teapot_latest_itl_seconds{quantile="0.99"}', 'teapot_latest_itl_seconds has no label quantile'],
    ['teapot_latest_itl_seconds{statistic="P99"}', 'no teapot_latest_itl_seconds series has statistic="P99"'],
    ['sum by (profile) (teapot_latest_itl_seconds)', 'groups by profile, which none of its metrics has'],
  ])('refuses %s', (query, problem) => {
    expect(promqlProblems(query, metrics)).toEqual([problem]);
  });

  it('refuses what does not parse', () => {
    expect(promqlProblems('teapot_latest_itl_seconds{statistic="p99"', metrics)[0]).toMatch(
      /^does not parse/,
    );
    expect(promqlProblems('rate(teapot_latest_itl_seconds[5m]', metrics)[0]).toMatch(/^does not parse/);
  });
});
