-- CreateEnum
CREATE TYPE "RollupGrain" AS ENUM ('hour', 'day');

-- CreateTable
CREATE TABLE "run_rollups" (
    "id" UUID NOT NULL,
    "grain" "RollupGrain" NOT NULL,
    "bucket_start" TIMESTAMPTZ(3) NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "profile_id" UUID,
    "config_id" UUID,
    "trigger" "RunTrigger" NOT NULL,
    "client_saturated" BOOLEAN NOT NULL,
    "metric" TEXT NOT NULL,
    "runs" INTEGER NOT NULL,
    "requests" BIGINT NOT NULL,
    "tokens" BIGINT NOT NULL,
    "samples" BIGINT NOT NULL,
    "encoded" BYTEA,
    "numerator" DOUBLE PRECISION,
    "denominator" DOUBLE PRECISION,

    CONSTRAINT "run_rollups_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "run_rollups_metric_grain_endpoint_id_bucket_start_idx" ON "run_rollups"("metric", "grain", "endpoint_id", "bucket_start");

-- AddForeignKey
ALTER TABLE "run_rollups" ADD CONSTRAINT "run_rollups_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "run_rollups" ADD CONSTRAINT "run_rollups_profile_id_fkey" FOREIGN KEY ("profile_id") REFERENCES "profiles"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "run_rollups" ADD CONSTRAINT "run_rollups_config_id_fkey" FOREIGN KEY ("config_id") REFERENCES "serving_configs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Runs measured before this migration are rolled up by the migration runner right after it
-- (backfillRollups in packages/db/src/rollups.ts: idempotent, one endpoint-day per transaction),
-- because merging the encoded histograms is code, not SQL.
