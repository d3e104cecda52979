-- Load sweeps and capacity searches: a profile may carry a SweepSpec; a sweep row per queued sweep,
-- whose points are ordinary runs (runs.sweep_id, sweep_index), and a price per GPU-hour on serving
-- configurations for cost per million tokens (null: no price, no cost).
CREATE TYPE "SweepStatus" AS ENUM ('queued', 'running', 'succeeded', 'failed', 'aborted');
CREATE TYPE "SweepStopReason" AS ENUM ('completed', 'converged', 'over_saturated', 'below_lowest', 'above_highest', 'point_limit', 'endpoint_failed', 'aborted');

-- AlterTable
ALTER TABLE "serving_configs" ADD COLUMN "usd_per_gpu_hour" DOUBLE PRECISION;

-- AlterTable
ALTER TABLE "profiles" ADD COLUMN "sweep" JSONB;

-- CreateTable
CREATE TABLE "sweeps" (
    "id" UUID NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "profile_id" UUID,
    "config_id" UUID,
    "deployment_id" UUID,
    "trigger" "RunTrigger" NOT NULL,
    "slot_key" TEXT,
    "spec" JSONB NOT NULL,
    "profile_snapshot" JSONB NOT NULL,
    "status" "SweepStatus" NOT NULL DEFAULT 'queued',
    "stop_reason" "SweepStopReason",
    "capacity" DOUBLE PRECISION,
    "bracket_passed" DOUBLE PRECISION,
    "bracket_failed" DOUBLE PRECISION,
    "cost_per_mtok_at_capacity" DOUBLE PRECISION,
    "error" TEXT,
    "error_class" "RunErrorClass",
    "queued_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "sweeps_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "sweeps_slot_key_key" ON "sweeps"("slot_key");
CREATE INDEX "sweeps_profile_id_queued_at_idx" ON "sweeps"("profile_id", "queued_at");
CREATE INDEX "sweeps_endpoint_id_queued_at_idx" ON "sweeps"("endpoint_id", "queued_at");
CREATE INDEX "sweeps_status_idx" ON "sweeps"("status");

ALTER TABLE "sweeps" ADD CONSTRAINT "sweeps_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "endpoints"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "sweeps" ADD CONSTRAINT "sweeps_profile_id_fkey" FOREIGN KEY ("profile_id") REFERENCES "profiles"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "sweeps" ADD CONSTRAINT "sweeps_config_id_fkey" FOREIGN KEY ("config_id") REFERENCES "serving_configs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "sweeps" ADD CONSTRAINT "sweeps_deployment_id_fkey" FOREIGN KEY ("deployment_id") REFERENCES "deployments"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AlterTable: a run may be one point of a sweep; (sweep_id, sweep_index) is unique, so no point is
-- measured twice.
ALTER TABLE "runs" ADD COLUMN "sweep_id" UUID;
ALTER TABLE "runs" ADD COLUMN "sweep_index" INTEGER;
ALTER TABLE "runs" ADD COLUMN "sweep_point" JSONB;
CREATE UNIQUE INDEX "runs_sweep_id_sweep_index_key" ON "runs"("sweep_id", "sweep_index");
ALTER TABLE "runs" ADD CONSTRAINT "runs_sweep_id_fkey" FOREIGN KEY ("sweep_id") REFERENCES "sweeps"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
