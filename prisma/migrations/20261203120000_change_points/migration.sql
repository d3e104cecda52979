-- CreateEnum
CREATE TYPE "ChangePointMode" AS ENUM ('otava', 'robust');

-- CreateEnum
CREATE TYPE "ChangePointKind" AS ENUM ('step', 'drift');

-- CreateTable
CREATE TABLE "change_points" (
    "id" UUID NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "profile_id" UUID NOT NULL,
    "metric" TEXT NOT NULL,
    "statistic" TEXT NOT NULL,
    "mode" "ChangePointMode" NOT NULL,
    "kind" "ChangePointKind" NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "run_id" UUID NOT NULL,
    "previous_run_id" UUID,
    "end_run_id" UUID,
    "end_at" TIMESTAMPTZ(3),
    "runs_before" INTEGER NOT NULL,
    "runs_after" INTEGER NOT NULL,
    "mean_before" DOUBLE PRECISION NOT NULL,
    "mean_after" DOUBLE PRECISION NOT NULL,
    "magnitude" DOUBLE PRECISION NOT NULL,
    "p_value" DOUBLE PRECISION NOT NULL,
    "detected_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "change_points_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "change_points_at_idx" ON "change_points"("at");

-- CreateIndex
CREATE INDEX "change_points_run_id_idx" ON "change_points"("run_id");

-- CreateIndex
CREATE UNIQUE INDEX "change_points_series_run_key" ON "change_points"("endpoint_id", "profile_id", "metric", "statistic", "mode", "kind", "run_id");

-- AddForeignKey
ALTER TABLE "change_points" ADD CONSTRAINT "change_points_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "change_points" ADD CONSTRAINT "change_points_profile_id_fkey" FOREIGN KEY ("profile_id") REFERENCES "profiles"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "change_points" ADD CONSTRAINT "change_points_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
