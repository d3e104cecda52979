export { createWorkerApp, type CreateWorkerAppOptions } from './worker-app';
export { SchedulerService, type TickReport } from './schedule/scheduler.service';
export { ProfileSchedule, slotKey, parseSlotKey, jitterMs, type ScheduleSpec } from './schedule/schedule';
export { RunProcessor, type RunJobOutcome } from './runs/run.processor';
export { RunReaper, type ReapReport } from './runs/run-reaper';
export { RetentionService } from './retention/retention.service';
export { MetricsService, type WorkerHealth } from './metrics/metrics.service';
export { type Clock } from './env/worker-env';
