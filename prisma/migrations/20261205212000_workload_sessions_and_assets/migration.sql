-- Session workloads (multi-turn conversations): each request's session, numbered in start order
-- within its run, and its turn in that session (0 = first). Null for single-turn workloads, where a
-- null costs one bit of the row's null bitmap.
ALTER TABLE "run_requests" ADD COLUMN "session_id" INTEGER,
ADD COLUMN "turn_index" INTEGER;

-- Files uploaded once and named by their content's SHA-256 (datasets now; tokenizers and traces later):
-- profiles refer to them by hash, so a file is stored once however many profiles and runs use it.
CREATE TYPE "AssetKind" AS ENUM ('dataset');

CREATE TABLE "assets" (
    "sha256" TEXT NOT NULL,
    "kind" "AssetKind" NOT NULL,
    "media_type" TEXT NOT NULL,
    "size_bytes" INTEGER NOT NULL,
    "bytes" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "assets_pkey" PRIMARY KEY ("sha256")
);
