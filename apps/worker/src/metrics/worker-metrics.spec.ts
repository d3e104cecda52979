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
});
