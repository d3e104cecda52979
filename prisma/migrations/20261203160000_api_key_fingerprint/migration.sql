-- The first 12 characters of a key were listed to every read key: they are dropped. Listings show
-- a fingerprint derived from key_hash instead, which reveals nothing of the key.
ALTER TABLE "api_keys" DROP COLUMN "key_prefix";

-- The key that came from TEAPOT_API_KEY; a new value of the variable revokes the old one at boot.
ALTER TABLE "api_keys" ADD COLUMN "bootstrap" BOOLEAN NOT NULL DEFAULT false;
UPDATE "api_keys" SET "bootstrap" = true WHERE "name" = 'TEAPOT_API_KEY';
