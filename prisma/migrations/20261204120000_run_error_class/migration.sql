-- Why a run did not succeed, as a class kept apart from its free-text error: above all, a worker
-- that died while measuring (`worker_lost`) is not the endpoint failing (`endpoint`).
CREATE TYPE "RunErrorClass" AS ENUM ('endpoint', 'worker_lost', 'stopped', 'internal');
ALTER TABLE "runs" ADD COLUMN "error_class" "RunErrorClass";

-- Runs stored before the column, classified where their error text says which class it was.
UPDATE "runs" SET "error_class" = 'worker_lost'
  WHERE "status" IN ('failed', 'aborted')
    AND ("error" LIKE '%job stalled more than allowable limit%' OR "error" LIKE 'aborted: worker % stopped mid-run%');
UPDATE "runs" SET "error_class" = 'endpoint'
  WHERE "error_class" IS NULL AND "status" IN ('failed', 'partial') AND "summary" IS NOT NULL;
UPDATE "runs" SET "error_class" = 'stopped'
  WHERE "error_class" IS NULL AND "status" = 'aborted';
UPDATE "runs" SET "error_class" = 'internal'
  WHERE "error_class" IS NULL AND "status" = 'failed';
