-- CreateEnum
CREATE TYPE "ApiKeyScope" AS ENUM ('read', 'write');

-- CreateEnum
CREATE TYPE "ApiKind" AS ENUM ('chat', 'completions');

-- CreateEnum
CREATE TYPE "RunStatus" AS ENUM ('queued', 'running', 'succeeded', 'partial', 'failed', 'aborted');

-- CreateEnum
CREATE TYPE "RunTrigger" AS ENUM ('schedule', 'manual', 'deployment');

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "scope" "ApiKeyScope" NOT NULL,
    "key_hash" TEXT NOT NULL,
    "key_prefix" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "endpoints" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "base_url" TEXT NOT NULL,
    "api_kind" "ApiKind" NOT NULL,
    "model" TEXT NOT NULL,
    "auth_headers_enc" BYTEA,
    "auth_header_names" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "archived_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "serving_configs" (
    "id" UUID NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "engine" TEXT,
    "engine_version" TEXT,
    "gpu_model" TEXT,
    "gpu_count" INTEGER,
    "weight_quant" TEXT,
    "activation_quant" TEXT,
    "kv_cache_quant" TEXT,
    "tensor_parallel" INTEGER,
    "pipeline_parallel" INTEGER,
    "max_batch_tokens" INTEGER,
    "max_num_seqs" INTEGER,
    "spec_decode_method" TEXT,
    "spec_draft_model" TEXT,
    "spec_num_tokens" INTEGER,
    "chunked_prefill" BOOLEAN,
    "prefix_caching" BOOLEAN,
    "extra" JSONB NOT NULL DEFAULT '{}',
    "note" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "serving_configs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "profiles" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "workload" JSONB NOT NULL,
    "load" JSONB NOT NULL,
    "request_count" INTEGER,
    "duration_s" INTEGER,
    "warmup_requests" INTEGER NOT NULL DEFAULT 0,
    "seed" INTEGER,
    "timeout_ms" INTEGER NOT NULL DEFAULT 120000,
    "stall_timeout_ms" INTEGER NOT NULL DEFAULT 30000,
    "force_output_length" BOOLEAN NOT NULL DEFAULT true,
    "slo" JSONB NOT NULL DEFAULT '{}',
    "schedule_cron" TEXT,
    "schedule_interval_s" INTEGER,
    "schedule_jitter_s" INTEGER NOT NULL DEFAULT 0,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "profiles_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "runs" (
    "id" UUID NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "config_id" UUID,
    "profile_id" UUID,
    "profile_snapshot" JSONB NOT NULL,
    "status" "RunStatus" NOT NULL DEFAULT 'queued',
    "trigger" "RunTrigger" NOT NULL,
    "slot_key" TEXT,
    "queued_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "worker_id" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT,
    "wall_anchor" TIMESTAMPTZ(6),
    "monotonic_anchor_ns" BIGINT,
    "duration_us" BIGINT,
    "summary" JSONB,
    "ttft_p50_ms" DOUBLE PRECISION,
    "ttft_p99_ms" DOUBLE PRECISION,
    "tpot_p50_ms" DOUBLE PRECISION,
    "tpot_p99_ms" DOUBLE PRECISION,
    "itl_p50_ms" DOUBLE PRECISION,
    "itl_p99_ms" DOUBLE PRECISION,
    "e2e_p50_ms" DOUBLE PRECISION,
    "e2e_p99_ms" DOUBLE PRECISION,
    "output_tokens_per_s" DOUBLE PRECISION,
    "requests_per_s" DOUBLE PRECISION,
    "goodput_rps" DOUBLE PRECISION,
    "requests_succeeded" INTEGER,
    "requests_failed" INTEGER,
    "requests_incomplete" INTEGER,
    "error_counts" JSONB NOT NULL DEFAULT '{}',
    "event_loop_delay_p99_ms" DOUBLE PRECISION,
    "event_loop_delay_max_ms" DOUBLE PRECISION,
    "client_saturated" BOOLEAN,
    "client_health" JSONB,
    "stream_options_requested" BOOLEAN,
    "stream_options_rejected" BOOLEAN,

    CONSTRAINT "runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "run_requests" (
    "run_id" UUID NOT NULL,
    "index" INTEGER NOT NULL,
    "warmup" BOOLEAN NOT NULL,
    "outcome" TEXT NOT NULL,
    "error_class" TEXT,
    "error_message" TEXT,
    "http_status" INTEGER,
    "retry_after_s" DOUBLE PRECISION,
    "scheduled_us" BIGINT NOT NULL,
    "start_us" BIGINT NOT NULL,
    "ttfb_us" BIGINT,
    "ttft_us" BIGINT,
    "e2e_us" BIGINT,
    "output_tokens" INTEGER NOT NULL,
    "prompt_tokens" INTEGER,
    "target_prompt_tokens" INTEGER,
    "token_source" TEXT NOT NULL,
    "response_id" TEXT,
    "finish_reason" TEXT,
    "chunk_count" INTEGER NOT NULL,
    "chunk_offsets_us" BYTEA,
    "chunk_tokens" BYTEA,
    "chunk_kinds" BYTEA,
    "raw_dropped_at" TIMESTAMPTZ(3),

    CONSTRAINT "run_requests_pkey" PRIMARY KEY ("run_id","index")
);

-- CreateTable
CREATE TABLE "run_histograms" (
    "run_id" UUID NOT NULL,
    "metric" TEXT NOT NULL,
    "count" BIGINT NOT NULL,
    "encoded" BYTEA NOT NULL,

    CONSTRAINT "run_histograms_pkey" PRIMARY KEY ("run_id","metric")
);

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys"("key_hash");

-- CreateIndex
CREATE UNIQUE INDEX "endpoints_name_key" ON "endpoints"("name");

-- CreateIndex
CREATE INDEX "endpoints_tags_idx" ON "endpoints" USING GIN ("tags");

-- CreateIndex
CREATE INDEX "serving_configs_weight_quant_idx" ON "serving_configs"("weight_quant");

-- CreateIndex
CREATE INDEX "serving_configs_gpu_model_idx" ON "serving_configs"("gpu_model");

-- CreateIndex
CREATE UNIQUE INDEX "serving_configs_endpoint_id_version_key" ON "serving_configs"("endpoint_id", "version");

-- CreateIndex
CREATE INDEX "profiles_enabled_idx" ON "profiles"("enabled");

-- CreateIndex
CREATE UNIQUE INDEX "profiles_endpoint_id_name_key" ON "profiles"("endpoint_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "runs_slot_key_key" ON "runs"("slot_key");

-- CreateIndex
CREATE INDEX "runs_endpoint_id_queued_at_idx" ON "runs"("endpoint_id", "queued_at");

-- CreateIndex
CREATE INDEX "runs_profile_id_queued_at_idx" ON "runs"("profile_id", "queued_at");

-- CreateIndex
CREATE INDEX "runs_status_idx" ON "runs"("status");

-- CreateIndex
CREATE INDEX "runs_finished_at_idx" ON "runs"("finished_at");

-- AddForeignKey
ALTER TABLE "serving_configs" ADD CONSTRAINT "serving_configs_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "profiles" ADD CONSTRAINT "profiles_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "endpoints"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_config_id_fkey" FOREIGN KEY ("config_id") REFERENCES "serving_configs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_profile_id_fkey" FOREIGN KEY ("profile_id") REFERENCES "profiles"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "run_requests" ADD CONSTRAINT "run_requests_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "run_histograms" ADD CONSTRAINT "run_histograms_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
