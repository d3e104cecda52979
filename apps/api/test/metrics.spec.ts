import { SKIPPED_RUN_ERROR_PREFIX, snapshotOf } from '@teapot/contracts';
import { storeMeasuredRun, syntheticRunResult } from '@teapot/db/testing';
import { created, endpointBody, profileBody, startApiForFile } from './api';

/** One sample of the exposition text: its name, labels and value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses Prometheus text format 0.0.4 (the sample lines; comments checked separately). */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      labels[name] = value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

function find(samples: Sample[], name: string, labels: Record<string, string>): Sample[] {
  return samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([label, value]) => s.labels[label] === value),
  );
}

// Three groups shown at most: the fourth, least recently run, is counted as omitted.
const api = startApiForFile({ TEAPOT_METRICS_MAX_GROUPS: '3' });
let readKey: string;
const T0 = Date.UTC(2026, 10, 2, 12);
const MINUTE = 60_000;

/** The snapshot a run of the profile is queued with. */
async function snapshotOfProfile(profileId: string) {
  return snapshotOf(await api.prisma.profile.findUniqueOrThrow({ where: { id: profileId } }));
}

/** A run of `profileId` on `configId` started at `startedAt`, stored by the real run writer. */
async function storedRun(
  endpointId: string,
  profileId: string,
  configId: string,
  startedAt: number,
  seed: number,
): Promise<string> {
  return storeMeasuredRun(
    api.prisma,
    {
      endpointId,
      profileId,
      configId,
      startedAt: new Date(startedAt),
      profileSnapshot: await snapshotOfProfile(profileId),
    },
    syntheticRunResult({ requests: 6, tokensPerRequest: 30, seed, gapScale: 1 + seed / 10 }),
  );
}

async function scrape(): Promise<{ text: string; samples: Sample[] }> {
  const response = await api.http.get('/metrics').set('authorization', `Bearer ${readKey}`);
  expect(response.status).toBe(200);
  expect(response.headers['content-type']).toMatch(/^text\/plain;.*version=0\.0\.4/);
  return { text: response.text, samples: parseExposition(response.text) };
}

const ids = {} as Record<
  'a' | 'b' | 'c',
  { endpoint: string; profile: string; name: string; profileName: string }
>;
/** The labels naming a seeded endpoint on a series. */
const endpointLabels = (side: keyof typeof ids) => ({
  endpoint: ids[side].name,
  endpoint_id: ids[side].endpoint,
});
/** The labels naming a seeded endpoint and its profile on a series. */
const profileLabels = (side: keyof typeof ids) => ({
  ...endpointLabels(side),
  profile: ids[side].profileName,
  profile_id: ids[side].profile,
});
const latest = {} as Record<'a1' | 'a2' | 'b1', string>;
let latestDeployment: string;

beforeAll(async () => {
  readKey = (await created<{ key: string }>(api, '/api-keys', { name: 'prometheus', scope: 'read' })).key;
  for (const [key, quant] of [
    ['a', 'fp8'],
    ['b', 'fp16'],
    ['c', 'int4'],
  ] as const) {
    const endpoint = await created(api, '/endpoints', endpointBody({ config: { weightQuant: quant } }));
    const profile = await created(api, '/profiles', profileBody(endpoint.id as string));
    ids[key] = {
      endpoint: endpoint.id as string,
      profile: profile.id as string,
      name: endpoint.name as string,
      profileName: profile.name as string,
    };
  }
  const configOf = async (endpointId: string, version: number) =>
    (await api.prisma.servingConfig.findFirstOrThrow({ where: { endpointId, version } })).id;
  const { a, b, c } = ids;
  // c's only run is the oldest of all groups: it is the one left out.
  await storedRun(c.endpoint, c.profile, await configOf(c.endpoint, 1), T0 - 60 * MINUTE, 9);
  await storedRun(a.endpoint, a.profile, await configOf(a.endpoint, 1), T0, 1);
  latest.a1 = await storedRun(a.endpoint, a.profile, await configOf(a.endpoint, 1), T0 + MINUTE, 2);
  await created(api, `/endpoints/${a.endpoint}/configs`, { weightQuant: 'fp16' });
  latest.a2 = await storedRun(a.endpoint, a.profile, await configOf(a.endpoint, 2), T0 + 3 * MINUTE, 3);
  latest.b1 = await storedRun(b.endpoint, b.profile, await configOf(b.endpoint, 1), T0 + 2 * MINUTE, 4);
  await api.prisma.run.update({ where: { id: latest.b1 }, data: { errorRate: 0.25 } });
  // a: an older deployment, the latest (regressed, bringing config v2) and one announced for later.
  const deployment = (label: string, effectiveAt: number, extra: Record<string, unknown> = {}) =>
    api.prisma.deployment.create({
      data: {
        endpointId: a.endpoint,
        label,
        effectiveAt: new Date(effectiveAt),
        runsPerProfile: 1,
        profileIds: [a.profile],
        firstRunDelayS: 0,
        baselineRuns: 3,
        threshold: 0.1,
        ...extra,
      },
    });
  await deployment('fp8', T0 - 30 * MINUTE, { verdict: 'verified' });
  latestDeployment = (
    await deployment('fp8 -> fp16', T0 + 2 * MINUTE, {
      version: 'v2',
      verdict: 'regressed',
      configId: await configOf(a.endpoint, 2),
    })
  ).id;
  await deployment('later', Date.now() + 60 * MINUTE);
  // Newer runs that were never measured change nothing.
  await api.prisma.run.create({
    data: {
      endpointId: b.endpoint,
      profileId: b.profile,
      configId: await configOf(b.endpoint, 1),
      profileSnapshot: await snapshotOfProfile(b.profile),
      trigger: 'schedule',
      status: 'aborted',
      startedAt: new Date(T0 + 10 * MINUTE),
    },
  });
  // Skipped runs of a: one in the last day is counted, one two days old is not.
  for (const queuedAt of [new Date(), new Date(Date.now() - 48 * 60 * MINUTE)]) {
    await api.prisma.run.create({
      data: {
        endpointId: a.endpoint,
        profileId: a.profile,
        profileSnapshot: await snapshotOfProfile(a.profile),
        trigger: 'schedule',
        status: 'aborted',
        errorClass: 'stopped',
        error: `${SKIPPED_RUN_ERROR_PREFIX}not queued in time: the scheduler could not reach the database or Redis`,
        queuedAt,
      },
    });
  }
}, 60_000);

describe('GET /metrics', () => {
  it('needs an API key', async () => {
    const response = await api.http.get('/metrics');
    expect(response.status).toBe(401);
  });

  it("shows each group's latest measured run as gauges equal to its stored figures", async () => {
    const { text, samples } = await scrape();
    expect(text).toContain('# TYPE teapot_latest_itl_seconds gauge');
    expect(text).toContain(
      '# HELP teapot_latest_itl_seconds Inter-token latency of the latest measured run (statistic: p50, p99 of the run).',
    );
    expect(text).toContain(
      '# HELP teapot_latest_error_ratio Failed / (succeeded + failed) measured requests of the latest measured run.',
    );
    const groups: Array<[keyof typeof latest, 'a' | 'b', string]> = [
      ['a1', 'a', '1'],
      ['a2', 'a', '2'],
      ['b1', 'b', '1'],
    ];
    for (const [run, side, version] of groups) {
      const stored = await api.prisma.run.findUniqueOrThrow({ where: { id: latest[run] } });
      const labels = { ...profileLabels(side), config_version: version };
      const one = (name: string, extra: Record<string, string> = {}) => {
        const found = find(samples, name, { ...labels, ...extra });
        expect(found).toHaveLength(1);
        return found[0].value;
      };
      expect(one('teapot_latest_itl_seconds', { statistic: 'p50' })).toBe(stored.itlP50Ms! / 1000);
      expect(one('teapot_latest_itl_seconds', { statistic: 'p99' })).toBe(stored.itlP99Ms! / 1000);
      expect(one('teapot_latest_tpot_seconds', { statistic: 'p50' })).toBe(stored.tpotP50Ms! / 1000);
      expect(one('teapot_latest_tpot_seconds', { statistic: 'p99' })).toBe(stored.tpotP99Ms! / 1000);
      expect(one('teapot_latest_ttft_seconds', { statistic: 'p50' })).toBe(stored.ttftP50Ms! / 1000);
      expect(one('teapot_latest_ttft_seconds', { statistic: 'p99' })).toBe(stored.ttftP99Ms! / 1000);
      expect(one('teapot_latest_output_tokens_per_second')).toBe(stored.outputTokensPerS);
      expect(one('teapot_latest_error_ratio')).toBe(stored.errorRate);
      expect(one('teapot_latest_run_start_timestamp_seconds')).toBe(stored.startedAt!.getTime() / 1000);
      expect(one('teapot_latest_run_client_saturated')).toBe(0);
    }
    // Different runs behind each group, so equal figures would mean the wrong run was read.
    expect(
      new Set(find(samples, 'teapot_latest_itl_seconds', { statistic: 'p99' }).map((s) => s.value)).size,
    ).toBe(3);
    expect(find(samples, 'teapot_latest_error_ratio', { endpoint_id: ids.b.endpoint })[0].value).toBe(0.25);
    // The cap: three groups shown, the least recently run one counted.
    expect(find(samples, 'teapot_latest_itl_seconds', { endpoint_id: ids.c.endpoint })).toHaveLength(0);
    expect(find(samples, 'teapot_latest_results_omitted', {})[0].value).toBe(1);
    expect(find(samples, 'teapot_latest_run_start_timestamp_seconds', {})).toHaveLength(3);
  });

  it("shows each endpoint's latest deployment that took effect, with its verdict", async () => {
    const { samples } = await scrape();
    const at = find(samples, 'teapot_latest_deployment_timestamp_seconds', {});
    expect(at).toEqual([
      {
        name: 'teapot_latest_deployment_timestamp_seconds',
        labels: {
          ...endpointLabels('a'),
          deployment_id: latestDeployment,
          deployment: 'fp8 -> fp16',
          version: 'v2',
          config_version: '2',
        },
        value: (T0 + 2 * MINUTE) / 1000,
      },
    ]);
    expect(find(samples, 'teapot_latest_deployment_verdict', {})).toEqual([
      {
        name: 'teapot_latest_deployment_verdict',
        labels: {
          ...endpointLabels('a'),
          deployment_id: latestDeployment,
          verdict: 'regressed',
        },
        value: 1,
      },
    ]);
  });

  it('counts the runs skipped in the last day per endpoint and profile', async () => {
    const { text, samples } = await scrape();
    expect(text).toContain('# TYPE teapot_runs_skipped_last_day gauge');
    const skipped = find(samples, 'teapot_runs_skipped_last_day', {});
    expect(skipped).toEqual([
      {
        name: 'teapot_runs_skipped_last_day',
        labels: profileLabels('a'),
        value: 1,
      },
    ]);
  });

  it('times requests by route template and status, beside the process metrics', async () => {
    await api.authed.get(`/endpoints/${ids.a.endpoint}`).expect(200);
    await api.authed.get(`/endpoints/${ids.b.endpoint}`).expect(200);
    await api.authed.get('/no-such-route').expect(404);
    await api.http.get('/metrics').expect(401);
    const { samples } = await scrape();
    const count = (labels: Record<string, string>) =>
      find(samples, 'teapot_http_request_duration_seconds_count', labels)[0]?.value ?? 0;
    // One series for both ids: the template, not the path.
    expect(count({ method: 'GET', route: '/endpoints/:id', status_code: '200' })).toBe(2);
    expect(
      find(samples, 'teapot_http_request_duration_seconds_count', {}).some((s) =>
        s.labels.route.includes(ids.a.endpoint),
      ),
    ).toBe(false);
    // An unknown path is counted under a template too (the dashboard's fallback, or none), never itself.
    const notFound = find(samples, 'teapot_http_request_duration_seconds_count', { status_code: '404' });
    expect(notFound.reduce((sum, s) => sum + s.value, 0)).toBeGreaterThanOrEqual(1);
    expect(notFound.map((s) => s.labels.route)).not.toContain('/no-such-route');
    expect(count({ method: 'GET', route: '/metrics', status_code: '401' })).toBeGreaterThanOrEqual(1);
    const buckets = find(samples, 'teapot_http_request_duration_seconds_bucket', {
      route: '/endpoints/:id',
      status_code: '200',
    });
    expect(buckets.find((b) => b.labels.le === '+Inf')?.value).toBe(2);
    expect(find(samples, 'process_cpu_user_seconds_total', {})[0].value).toBeGreaterThan(0);
    expect(find(samples, 'nodejs_heap_size_used_bytes', {})[0].value).toBeGreaterThan(0);
  });
});
