export { createTestWorld, type TestWorld, type TestWorldOptions } from './world';
export { deleteKeysUnderPrefix, deleteRedisPrefix, REDIS_URL } from './redis';
export { freePort, freePorts } from './ports';
export { waitFor } from './wait';
export {
  seedEndpoint,
  seedManualRun,
  seedProfile,
  waitForRunToFinish,
  type EndpointSeed,
  type ProfileSeed,
} from './seed';
export {
  seedWebhookSubscription,
  startWebhookReceiver,
  type ReceivedWebhook,
  type ReceiverAnswer,
  type SubscriptionSeed,
  type WebhookReceiver,
} from './webhook-receiver';
