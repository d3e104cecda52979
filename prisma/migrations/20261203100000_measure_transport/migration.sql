-- CreateEnum: how the measurement client reads streams (@teapot/measure's transports).
CREATE TYPE "MeasureTransport" AS ENUM ('undici', 'http1');

-- AlterTable: a profile picks its transport; existing profiles move to http1, the new default.
ALTER TABLE "profiles" ADD COLUMN "transport" "MeasureTransport" NOT NULL DEFAULT 'http1';

-- AlterTable: every run keeps how it was measured. Runs stored before this column read with undici,
-- the only transport the worker used until now; the package version that measured them is unknown.
ALTER TABLE "runs" ADD COLUMN "transport" "MeasureTransport",
ADD COLUMN "measure_version" TEXT;
UPDATE "runs" SET "transport" = 'undici' WHERE "summary" IS NOT NULL;
