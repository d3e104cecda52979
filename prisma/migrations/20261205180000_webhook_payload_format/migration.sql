-- What a subscription's deliveries carry (see prisma/schema.prisma): today's standard body by default.
CREATE TYPE "WebhookPayloadFormat" AS ENUM ('standard', 'slack');

ALTER TABLE "webhook_subscriptions" ADD COLUMN "format" "WebhookPayloadFormat" NOT NULL DEFAULT 'standard';
