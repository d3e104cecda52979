export { createPool, createPrisma, createDatabase, PooledPrismaClient } from './client';
export type { CreatePrismaOptions, Database, CreateDatabaseOptions } from './client';
export {
  assertDatabaseMigrated,
  assertMigrated,
  DatabaseNotMigratedError,
  migrate,
  readMigrations,
  MIGRATIONS_DIR,
} from './migrate';
export type { MigrateOptions, MigrateResult, MigrationFile } from './migrate';
export { ensureDatabase, dropDatabase } from './connection';
export { poolOf, queriesOf, type Queryable, type ReadStore, type RunStore } from './run-store';
export { cancellableQueries, QueryCancelledError } from './cancellable-queries';
export type { PoolClient } from 'pg';
export { persistRunResult, runStatusOf, buildHistograms } from './run-writer';
export type { PersistRunOptions, PersistedRun } from './run-writer';
export type { ServerMetricsRecord } from './server-samples';
export { HISTOGRAM_METRICS, type HistogramMetric } from '@teapot/contracts';
export { readRunRequests, streamRunRequests, readRunHistograms, readMeasuredRequests } from './run-reader';
export type { ReadRunRequestsOptions, StreamRunRequestsOptions, MeasuredRequests } from './run-reader';
export { dropRawTimings, dropWebhookHistory } from './retention';
export { backfillRollups, refreshRollups, ROLLUP_GRAINS, ROLLUP_METRICS } from './rollups';
export type { BackfillRollupsResult } from './rollups';
export type {
  DropRawTimingsOptions,
  DropRawTimingsResult,
  DropWebhookHistoryOptions,
  DropWebhookHistoryResult,
} from './retention';
export { LatencyHistogram, HISTOGRAM_RELATIVE_ERROR, HISTOGRAM_MAX_US } from '@teapot/stats';
export { PrismaClient, Prisma } from './generated/prisma/client';
export * from './generated/prisma/enums';
export type {
  ApiKey,
  Endpoint,
  ServingConfig,
  Profile,
  Run,
  RunRequest,
  RunHistogram,
  WebhookSubscription,
  WebhookEvent,
  WebhookDelivery,
  WebhookAttempt,
  RunRollup,
  Deployment,
  Sweep,
} from './generated/prisma/client';
export { abortUnfinishedRuns, createQueuedRun, createQueuedSweep, latestServingConfigIds } from './runs';
export { classifyDbError, isTransientDbError, isUniqueViolation, type DbErrorKind } from './errors';
export {
  deliveriesToQueue,
  eventContent,
  markDeliveriesQueued,
  recordEvent,
  WEBHOOK_OUTBOX_CHANNEL,
  type DeliveriesToQueueOptions,
  type DeliveryToQueue,
  type OutboxTransaction,
  type RecordedEvent,
  type WebhookEventInput,
} from './webhook-outbox';
export { recordRunFailed, type FailedRun } from './run-events';
export { analysisStores, readStores, type AnalysisStores, type ReadStores } from './stores';
export {
  RUN_TRIGGERS,
  RunSelectionStore,
  type RunDetail,
  type RunDiagnostics,
  type RunFilter,
  type RunTriggerName,
  type SelectedRun,
} from './stores/run-selection';
export {
  SERVING_CONFIG_FIELDS,
  SERVING_CONFIG_FIELD_NAMES,
  type ConfigFilter,
  type ConfigValue,
  type ServingConfigField,
} from './stores/serving-config';
export { RunHistogramStore, type StoredHistogram, type EncodedHistogram } from './stores/run-histograms';
export { RunRequestStore } from './stores/run-requests';
export { RunRollupStore, type RollupBucket, type RollupFilter } from './stores/run-rollups';
export { ProfileStore, type ScheduledProfile, type StoredThresholds } from './stores/profiles';
export { AssetStore, type AssetMeta } from './stores/assets';
export {
  lastScheduledSlotKeys,
  queueScheduledRuns,
  recordSkippedSlots,
  type QueuedSlot,
  type ScheduledRunToQueue,
  type SkippedSlotToRecord,
} from './stores/scheduled-runs';
export {
  CHANGE_POINT_KINDS,
  CHANGE_POINT_MODES,
  ChangePointStore,
  changePointSurroundings,
  markChangePointsAnnounced,
  seriesItemsOf,
  type ChangePointAttribution,
  type ChangePoint,
  type ChangePointFilter,
  type ChangePointKind,
  type ChangePointMode,
  type ChangePointPlan,
  type ChangePointReplacement,
  type FoundChangePoint,
  type SeriesFamily,
  type SeriesItems,
  type StoredChangePoint,
  type SeriesKey,
  type SeriesRun,
} from './stores/change-points';
export {
  changePointAttribution,
  changePointAttributions,
  type AttributionSubject,
} from './stores/change-point-attribution';
export {
  DeploymentStore,
  type BaselineFilter,
  type DeploymentMark,
  type DeploymentRun,
  type DeploymentSweep,
} from './stores/deployments';
export {
  LatestResultsStore,
  type LatestDeployment,
  type LatestResult,
  type SkippedRuns,
} from './stores/latest-results';
export { SweepSeriesStore, type SeriesSweep, type SweepFilter } from './stores/sweep-series';
export {
  SweepStore,
  type IdleSweep,
  type NewPointRun,
  type NewSweep,
  type QueuedSweepSlot,
  type ScheduledSweepToQueue,
  type StoredSweep,
  type SweepFinish,
  type SweepListFilter,
  type SweepPageAfter,
  type SweepPointRun,
  type SweepWithPoints,
} from './stores/sweeps';
