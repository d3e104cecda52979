-- AlterTable: the error-rate headline of the metric catalogue (packages/contracts/src/metrics.ts).
ALTER TABLE "runs" ADD COLUMN "error_rate" DOUBLE PRECISION;

-- Runs persisted before this column: failed / (succeeded + failed), as the run writer now stores it.
UPDATE "runs" SET "error_rate" = "requests_failed"::float8 / ("requests_succeeded" + "requests_failed")
 WHERE "requests_succeeded" + "requests_failed" > 0;
