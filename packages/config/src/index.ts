export {
  apiEnvSchema,
  apiKey,
  endpointUrlAllow,
  API_KEY_MIN_LENGTH,
  listenHost,
  databaseUrl,
  ENV_HINTS,
  EnvError,
  loadApiEnv,
  LOG_LEVELS,
  logLevel,
  parseEnv,
  port,
  redisPrefix,
  redisUrl,
  secretKey,
  sharedEnvShape,
} from './env';
export type { ApiEnv, EnvSource, LogLevel } from './env';
export { decryptHeaders, decryptSecret, encryptHeaders, encryptSecret, parseSecretKey } from './secrets';
export { loadWorkerEnv, workerEnvSchema, type WorkerEnv } from './worker';
export { publicUrl, webhookEnvShape, webhookUrlAllow } from './webhooks';
export { otlpEnvShape } from './otlp';
