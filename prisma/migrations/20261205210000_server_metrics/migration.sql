-- An endpoint may name the URL of its server's own Prometheus metrics (and headers for it, encrypted
-- like auth_headers_enc); a run against it scrapes them while it measures and keeps the series its
-- diagnostics and page use, one row per run.
ALTER TABLE "endpoints" ADD COLUMN "metrics_url" TEXT,
ADD COLUMN "metrics_headers_enc" BYTEA,
ADD COLUMN "metrics_header_names" TEXT[] DEFAULT ARRAY[]::TEXT[];

CREATE TABLE "run_server_samples" (
    "run_id" UUID NOT NULL,
    "offsets_ms" DOUBLE PRECISION[],
    "series" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "run_server_samples_pkey" PRIMARY KEY ("run_id")
);

ALTER TABLE "run_server_samples" ADD CONSTRAINT "run_server_samples_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
