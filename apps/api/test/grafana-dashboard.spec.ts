import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { snapshotOf } from '@teapot/contracts';
import { storeMeasuredRun, syntheticRunResult } from '@teapot/db/testing';
import { parse as parseYaml } from 'yaml';
import { created, endpointBody, profileBody, startApiForFile } from './api';
import { exportedMetrics, promqlProblems, withoutVariables, type ExportedMetrics } from './promql-check';

const ROOT = path.resolve(__dirname, '../../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

interface Panel {
  title: string;
  type: string;
  datasource?: { uid?: string };
  targets?: Array<{ expr: string }>;
  panels?: Panel[];
}
interface Dashboard {
  panels: Panel[];
  annotations: { list: Array<{ name: string; expr?: string; useValueForTime?: boolean }> };
  templating: { list: Array<{ name: string; type: string; query?: string | { query: string } }> };
}

const dashboard = JSON.parse(read('deploy/grafana/dashboards/teapot.json')) as Dashboard;
const panels = (list: Panel[]): Panel[] => list.flatMap((panel) => [panel, ...panels(panel.panels ?? [])]);

/** Every PromQL query of the dashboard, with where it stands. */
function queries(): Array<{ where: string; expr: string }> {
  const found = panels(dashboard.panels).flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({ where: `panel "${panel.title}"`, expr: target.expr })),
  );
  for (const annotation of dashboard.annotations.list)
    if (annotation.expr) found.push({ where: `annotation "${annotation.name}"`, expr: annotation.expr });
  for (const variable of dashboard.templating.list) {
    if (variable.type !== 'query') continue;
    const query = typeof variable.query === 'string' ? variable.query : variable.query?.query;
    // label_values(selector, label): the selector is PromQL, the label must be one of its series'.
    const match = /^label_values\((.+),\s*(\w+)\)$/.exec(query ?? '');
    if (!match) throw new Error(`variable ${variable.name}: not a label_values() query: ${query}`);
    found.push({ where: `variable "${variable.name}"`, expr: `count by (${match[2]}) (${match[1]})` });
  }
  return found;
}

const api = startApiForFile();
let metrics: ExportedMetrics;

beforeAll(async () => {
  const key = (await created<{ key: string }>(api, '/api-keys', { name: 'grafana', scope: 'read' })).key;
  // One group with a measured run and a verified deployment, so every teapot_latest_* series exists.
  const endpoint = await created(api, '/endpoints', endpointBody({ config: { weightQuant: 'fp8' } }));
  const profile = await created(api, '/profiles', profileBody(endpoint.id as string));
  const endpointId = endpoint.id as string;
  const profileRow = await api.prisma.profile.findUniqueOrThrow({ where: { id: profile.id as string } });
  const config = await api.prisma.servingConfig.findFirstOrThrow({ where: { endpointId } });
  await storeMeasuredRun(
    api.prisma,
    {
      endpointId,
      profileId: profileRow.id,
      configId: config.id,
      startedAt: new Date(),
      profileSnapshot: snapshotOf(profileRow),
    },
    syntheticRunResult({ requests: 4, tokensPerRequest: 16, seed: 1 }),
  );
  await api.prisma.deployment.create({
    data: {
      endpointId,
      label: 'fp8',
      effectiveAt: new Date(Date.now() - 60_000),
      runsPerProfile: 1,
      profileIds: [profileRow.id],
      firstRunDelayS: 0,
      baselineRuns: 3,
      threshold: 0.1,
      verdict: 'verified',
    },
  });
  const scraped = await api.http.get('/metrics').set('authorization', `Bearer ${key}`).expect(200);
  metrics = exportedMetrics(scraped.text);
}, 60_000);

describe('the Grafana dashboard (deploy/grafana/dashboards/teapot.json)', () => {
  it('queries only metrics and labels the API exports, in PromQL that parses', () => {
    const all = queries();
    expect(all.length).toBeGreaterThan(10);
    const problems = all.flatMap(({ where, expr }) =>
      promqlProblems(expr, metrics).map((p) => `${where}: ${p}`),
    );
    expect(problems).toEqual([]);
  });

  it('shows P99 ITL, TPOT and TTFT, saturation, run age and deployments', () => {
    const exprs = queries().map((q) => withoutVariables(q.expr));
    for (const metric of ['itl', 'tpot', 'ttft'])
      expect(exprs).toContainEqual(
        expect.stringContaining(`teapot_latest_${metric}_seconds{statistic="p99"`),
      );
    expect(exprs).toContainEqual(expect.stringContaining('teapot_latest_run_client_saturated'));
    expect(exprs).toContainEqual(
      expect.stringContaining('time() - teapot_latest_run_start_timestamp_seconds'),
    );
    // Grafana reads an annotation's time from the value in ms when useValueForTime is set.
    const deployments = dashboard.annotations.list.find((a) => a.name === 'Deployments');
    expect(deployments).toMatchObject({ useValueForTime: true });
    expect(deployments?.expr).toMatch(/^teapot_latest_deployment_timestamp_seconds\{.*\} \* 1000$/);
  });

  it('takes its data source from a variable, so it works against any Prometheus', () => {
    const variable = dashboard.templating.list.find((v) => v.type === 'datasource');
    expect(variable).toMatchObject({ name: 'datasource', query: 'prometheus' });
    for (const panel of panels(dashboard.panels).filter((p) => p.type !== 'row'))
      expect({ panel: panel.title, uid: panel.datasource?.uid }).toEqual({
        panel: panel.title,
        uid: '${datasource}',
      });
  });
});

describe('docker-compose.yml and the provisioning files', () => {
  type Service = { profiles?: string[]; volumes?: string[]; image: string };
  const compose = parseYaml(read('docker-compose.yml')) as { services: Record<string, Service> };
  const mounts = (service: string) =>
    (compose.services[service].volumes ?? [])
      .filter((volume) => volume.startsWith('./'))
      .map((volume) => {
        const [source, target] = volume.split(':');
        return { source, target };
      });

  it('starts only Postgres and Redis by default; Prometheus and Grafana in the grafana profile', () => {
    const byDefault = Object.entries(compose.services).filter(([, service]) => !service.profiles);
    expect(byDefault.map(([name]) => name).sort()).toEqual(['postgres', 'redis']);
    expect(compose.services.grafana.profiles).toEqual(['grafana']);
    expect(compose.services.prometheus.profiles).toEqual(['grafana']);
  });

  it('mounts files that exist where the provisioning files look for them', () => {
    for (const { source } of [...mounts('grafana'), ...mounts('prometheus')])
      // The read key is the user's to write (git ignores it).
      if (!source.endsWith('teapot-read-key')) expect(existsSync(path.join(ROOT, source))).toBe(true);
    const provider = parseYaml(read('deploy/grafana/provisioning/dashboards/teapot.yaml')) as {
      providers: Array<{ options: { path: string } }>;
    };
    const dashboards = mounts('grafana').find((m) => m.source === './deploy/grafana/dashboards');
    expect(provider.providers[0].options.path).toBe(dashboards?.target);
    const datasource = parseYaml(read('deploy/grafana/provisioning/datasources/prometheus.yaml')) as {
      datasources: Array<{ type: string; url: string }>;
    };
    expect(datasource.datasources[0]).toMatchObject({ type: 'prometheus', url: 'http://prometheus:9090' });
    expect(read('.gitignore')).toContain('deploy/prometheus/teapot-read-key');
  });
});
