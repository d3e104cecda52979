-- Deployments and their post-deployment verification (see prisma/schema.prisma).
CREATE TYPE "DeploymentVerdict" AS ENUM ('verified', 'regressed', 'improved', 'inconclusive', 'no_baseline');

-- CreateTable
CREATE TABLE "deployments" (
    "id" UUID NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "label" TEXT NOT NULL,
    "version" TEXT,
    "config_id" UUID,
    "effective_at" TIMESTAMPTZ(3) NOT NULL,
    "runs_per_profile" INTEGER NOT NULL,
    "profile_ids" UUID[],
    "first_run_delay_s" INTEGER NOT NULL,
    "baseline_runs" INTEGER NOT NULL,
    "threshold" DOUBLE PRECISION NOT NULL,
    "verdict" "DeploymentVerdict",
    "verification" JSONB,
    "verified_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "deployments_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "deployments_endpoint_id_effective_at_idx" ON "deployments"("endpoint_id", "effective_at");
CREATE INDEX "deployments_effective_at_idx" ON "deployments"("effective_at");

ALTER TABLE "deployments" ADD CONSTRAINT "deployments_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "deployments" ADD CONSTRAINT "deployments_config_id_fkey" FOREIGN KEY ("config_id") REFERENCES "serving_configs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AlterTable: the deployment a run verifies.
ALTER TABLE "runs" ADD COLUMN "deployment_id" UUID;
CREATE INDEX "runs_deployment_id_idx" ON "runs"("deployment_id");
ALTER TABLE "runs" ADD CONSTRAINT "runs_deployment_id_fkey" FOREIGN KEY ("deployment_id") REFERENCES "deployments"("id") ON DELETE SET NULL ON UPDATE CASCADE;
