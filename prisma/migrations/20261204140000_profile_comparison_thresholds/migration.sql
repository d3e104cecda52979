-- AlterTable: a profile may set the change that matters when its runs are compared, per metric or
-- metric.statistic (relative; absolute for fractions). A comparison request's own thresholds win.
ALTER TABLE "profiles" ADD COLUMN "comparison_thresholds" JSONB NOT NULL DEFAULT '{}';
