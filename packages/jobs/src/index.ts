export {
  RUN_JOB_OPTIONS,
  WORKER_DEFAULTS,
  WEBHOOK_JOB_OPTIONS,
  webhookJobId,
  ANALYSIS_JOB_OPTIONS,
  CHANGE_POINT_JOB_OPTIONS,
  CHANGE_POINT_DEBOUNCE_MS,
  changePointsJobId,
  SWEEP_JOB_OPTIONS,
  advanceSweepJobId,
} from './options';
export {
  AnalysisQueueProducer,
  verificationJobId,
  type AnalysisQueueProducerOptions,
} from './analysis-producer';
export { closeQueuesAndConnection, createRedis } from './redis';
export {
  RunQueueProducer,
  type RunQueueProducerOptions,
  type EnqueueRunOptions,
  type RunEnqueueRequest,
} from './producer';
export { queueHealth, type QueueHealth } from './health';
export { WebhookQueueProducer, type WebhookAttemptRequest } from './webhook-producer';
export { ChangePointQueueProducer } from './change-point-producer';
export { SweepQueueProducer, type EnqueueAdvanceOptions } from './sweep-producer';
