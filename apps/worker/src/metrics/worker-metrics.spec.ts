import { TOKEN_LATENCY_BUCKETS_S } from '@teapot/contracts';
import { WorkerMetrics } from './worker-metrics';

/** `name{labels} value` lines of an exposition text, keyed by everything before the value. */
function samples(text: string): Map<string, number> {
  const lines = text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
  return new Map(
    lines.map((line) => {
      const at = line.lastIndexOf(' ');
      return [line.slice(0, at), Number(line.slice(at + 1))];
    }),
  );
}

describe('WorkerMetrics', () => {
  const tick = { atMs: 0, profiles: 3, due: 2, enqueued: 2, skipped: 0, ok: true };

  it('keeps the names and labels the hand-written text had', async () => {
    const metrics = new WorkerMetrics({ WORKER_ID: 'w-1' });
    const at = samples(await metrics.registry.metrics());
    // Every counter of this process is there from the start, at 0.
    for (const name of [
      'teapot_scheduler_ticks_total',
      'teapot_scheduler_ticks_failed_total',
      'teapot_scheduler_slots_enqueued_total',
      'teapot_scheduler_tick_seconds_total',
      'teapot_scheduler_tick_last_ms',
      'teapot_scheduler_tick_max_ms',
      'teapot_worker_start_delay_ms',
      'teapot_worker_busy_deferrals_total',
      'teapot_worker_persist_retries_total',
      'teapot_worker_running_runs',
      'teapot_scheduler_slots_skipped_total',
      'teapot_worker_runs_skipped_total',
    ])
      expect(at.get(`${name}{worker="w-1"}`)).toBe(0);

    metrics.recordTick({ ...tick, durationMs: 40, skipped: 3 });
    metrics.recordTick({ ...tick, durationMs: 10, ok: false, enqueued: 0 });
    metrics.recordRunFinished('succeeded');
    metrics.recordRunFinished('failed');
    metrics.recordRunFinished('succeeded');
    metrics.recordBusyDeferral();
    metrics.recordSkippedRun();
    metrics.recordPersistRetry();
    metrics.recordPersistRetry();
    metrics.recordStartDelay(125);
    metrics.setRunsMeasuring(1);
    metrics.runsByStatus.set({ status: 'queued' }, 4);
    metrics.queueJobs.set({ queue: 'runs', state: 'waiting' }, 7);

    const text = await metrics.registry.metrics();
    expect(text).toContain('# TYPE teapot_worker_runs_finished_total counter');
    expect(text).toContain('# TYPE teapot_scheduler_tick_last_ms gauge');
    const after = samples(text);
    expect(after.get('teapot_worker_runs_finished_total{worker="w-1",status="succeeded"}')).toBe(2);
    expect(after.get('teapot_worker_runs_finished_total{worker="w-1",status="failed"}')).toBe(1);
    expect(after.get('teapot_scheduler_ticks_total{worker="w-1"}')).toBe(2);
    expect(after.get('teapot_scheduler_ticks_failed_total{worker="w-1"}')).toBe(1);
    expect(after.get('teapot_scheduler_slots_enqueued_total{worker="w-1"}')).toBe(2);
    expect(after.get('teapot_scheduler_tick_seconds_total{worker="w-1"}')).toBeCloseTo(0.05, 12);
    expect(after.get('teapot_scheduler_tick_last_ms{worker="w-1"}')).toBe(10);
    expect(after.get('teapot_scheduler_tick_max_ms{worker="w-1"}')).toBe(40);
    expect(after.get('teapot_worker_start_delay_ms{worker="w-1"}')).toBe(125);
    expect(after.get('teapot_worker_busy_deferrals_total{worker="w-1"}')).toBe(1);
    expect(after.get('teapot_scheduler_slots_skipped_total{worker="w-1"}')).toBe(3);
    expect(after.get('teapot_worker_runs_skipped_total{worker="w-1"}')).toBe(1);
    expect(after.get('teapot_worker_persist_retries_total{worker="w-1"}')).toBe(2);
    expect(after.get('teapot_worker_running_runs{worker="w-1"}')).toBe(1);
    expect(after.get('teapot_runs{status="queued"}')).toBe(4);
    expect(after.get('teapot_queue_jobs{queue="runs",state="waiting"}')).toBe(7);
    // prom-client's process metrics come with it.
    expect(after.get('process_cpu_user_seconds_total')).toBeGreaterThan(0);

    expect(await metrics.valueOf('teapot_worker_runs_finished_total', { status: 'succeeded' })).toBe(2);
    expect(await metrics.valueOf('teapot_worker_runs_finished_total', { status: 'aborted' })).toBe(0);
  });

  it('keeps each instance to its own registry', async () => {
    const one = new WorkerMetrics({ WORKER_ID: 'a' });
    const two = new WorkerMetrics({ WORKER_ID: 'b' });
    one.recordBusyDeferral();
    expect(await one.valueOf('teapot_worker_busy_deferrals_total')).toBe(1);
    expect(await two.valueOf('teapot_worker_busy_deferrals_total')).toBe(0);
  });

  it('bins run samples into histograms whose buckets resolve 3-7 ms per token', async () => {
    const metrics = new WorkerMetrics({ WORKER_ID: 'w-1' });
    const group = {
      endpoint: 'fp8',
      endpointId: 'e-1',
      profile: 'chat',
      profileId: 'p-1',
      configVersion: 2,
      model: 'llama-8b',
      apiKind: 'chat' as const,
      baseUrl: 'http://127.0.0.1:8000/v1',
      engine: null,
    };
    // FP8 decode: 1000 tokens evenly between 3 and 7 ms; two runs add up.
    const itl = Float64Array.from({ length: 1000 }, (_, i) => 0.003 + (0.004 * i) / 999);
    const run = { group, samples: { ttft: [0.02, 0.03], tpot: [0.005], e2e: [0.2, 0.3], itl } };
    metrics.recordRunFigures(run);
    metrics.recordRunFigures(run);

    const text = await metrics.registry.metrics();
    expect(text).toContain('# TYPE teapot_run_itl_seconds histogram');
    const labels =
      'endpoint="fp8",endpoint_id="e-1",profile="chat",profile_id="p-1",config_version="2",worker="w-1"';
    const at = samples(text);
    expect(at.get(`teapot_run_itl_seconds_count{${labels}}`)).toBe(2000);
    expect(at.get(`teapot_run_itl_seconds_sum{${labels}}`)).toBeCloseTo(
      2 * itl.reduce((a, b) => a + b, 0),
      9,
    );
    expect(at.get(`teapot_run_ttft_seconds_count{${labels}}`)).toBe(4);
    // Cumulative, as Prometheus reads them; every bound a bucket of its own.
    const buckets = TOKEN_LATENCY_BUCKETS_S.map((le) =>
      at.get(`teapot_run_itl_seconds_bucket{${labels},le="${le}"}`)!,
    );
    for (const [i, le] of TOKEN_LATENCY_BUCKETS_S.entries())
      expect(buckets[i]).toBe(2 * itl.filter((value) => value <= le).length);
    expect(at.get(`teapot_run_itl_seconds_bucket{${labels},le="+Inf"}`)).toBe(2000);
    // histogram_quantile's p99 (linear within a bucket) lands within 5% of the exact one.
    const rank = 0.99 * 2000;
    const i = buckets.findIndex((count) => count >= rank);
    const lower = TOKEN_LATENCY_BUCKETS_S[i - 1];
    const p99 =
      lower +
      ((TOKEN_LATENCY_BUCKETS_S[i] - lower) * (rank - buckets[i - 1])) / (buckets[i] - buckets[i - 1]);
    expect(Math.abs(p99 - itl[989]) / itl[989]).toBeLessThan(0.05);
  });
});
