-- Whether a deployment's verification counts client-saturated runs (see prisma/schema.prisma).
ALTER TABLE "deployments" ADD COLUMN "include_saturated" BOOLEAN NOT NULL DEFAULT false;
