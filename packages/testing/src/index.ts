export { createTestWorld, type TestWorld, type TestWorldOptions } from './world';
export { closeInOrder, type Closable } from './close-in-order';
export { deleteKeysUnderPrefix, deleteRedisPrefix, REDIS_URL } from './redis';
export {
  freePort,
  freePorts,
  TcpProxy,
  TEST_TOKENIZER,
  tokenizerDirectory,
  waitFor,
  writeHugeBody,
} from '@teapot/testing-base';
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
