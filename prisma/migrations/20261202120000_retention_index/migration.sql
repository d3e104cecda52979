-- Raw SQL (Prisma cannot express partial indexes; allowed in packages/db/src/drift RAW_SQL_OBJECTS):
-- retention finds the requests of a run whose raw timings are still kept without rescanning dropped ones.
CREATE INDEX "run_requests_raw_kept_idx" ON "run_requests"("run_id") WHERE "raw_dropped_at" IS NULL;
