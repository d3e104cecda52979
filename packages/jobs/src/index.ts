export { QUEUE_NAMES, JOB_NAMES, type QueueName, type RunJobData } from './queues';
export { RUN_JOB_OPTIONS, RUN_WORKER_DEFAULTS } from './options';
export {
  createRedis,
  redisPrefix,
  deleteKeysUnderPrefix,
  deleteRedisPrefix,
  DEFAULT_REDIS_PREFIX,
} from './redis';
export {
  RunQueueProducer,
  type RunQueueProducerOptions,
  type EnqueueRunOptions,
  type RunEnqueueRequest,
} from './producer';
export { queueHealth, queueHealthPrometheus, type QueueHealth } from './health';
