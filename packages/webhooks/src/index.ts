export { addressScope, type AddressScope } from './address';
export {
  DEFAULT_TOLERANCE_S,
  generateSecret,
  SECRET_MAX_BYTES,
  SECRET_MIN_BYTES,
  secretKey,
  sign,
  signedHeaders,
  verify,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  WebhookVerificationError,
  type IncomingHeaders,
  type VerifyOptions,
} from './signature';
export {
  checkAddress,
  checkUrl,
  ENDPOINT_URL_DEFAULT,
  ENDPOINT_URL_SETTING,
  endpointUrlPolicy,
  guardedLookup,
  isUrlPolicyRefusal,
  parseUrlPolicy,
  UrlPolicyError,
  WEBHOOK_URL_DEFAULT,
  WEBHOOK_URL_SETTING,
  webhookUrlPolicy,
  type GuardedLookup,
  type HostResolver,
  type OptionalScope,
  type UrlPolicy,
  type UrlRefusal,
} from './url-policy';
export {
  attemptVerdict,
  DEFAULT_RETRY_SCHEDULE,
  MAX_RETRY_AFTER_MS,
  parseRetryAfter,
  parseRetrySchedule,
  RETRY_JITTER,
  type AttemptOutcome,
  type AttemptVerdict,
} from './retry';
export {
  DEFAULT_TIMEOUT_MS,
  describeRequestError,
  RESPONSE_KEEP_BYTES,
  sendWebhook,
  webhookDispatcher,
  type AttemptResult,
  type SendOptions,
  type WebhookMessage,
} from './send';
export { renderDeliveryBody, renderWebhookBody, type StoredEvent } from './body';
export { renderSlackMessage, SLACK_LISTS } from './slack';
export { SLACK_LIMITS, type SlackBlock, type SlackMessage, type SlackText } from './slack-blocks';
