-- A change point keeps its row as recomputations refine it (its first run may move a few runs, a step
-- may turn into a drift), so its series and run no longer identify it: matching is done in
-- packages/analysis, and the lookup index covers the series.
DROP INDEX "change_points_series_run_key";

-- CreateIndex
CREATE INDEX "change_points_endpoint_id_profile_id_metric_statistic_mode_idx" ON "change_points"("endpoint_id", "profile_id", "metric", "statistic", "mode");

-- AlterTable: a change point no longer found is retracted (kept, hidden from lists) rather than deleted,
-- so that finding it again revives the same one; the magnitude last announced to webhook subscribers
-- (null: never announced) is what a later `changepoint.updated` is judged against.
ALTER TABLE "change_points" ADD COLUMN "retracted_at" TIMESTAMPTZ(3),
ADD COLUMN "announced_magnitude" DOUBLE PRECISION;
