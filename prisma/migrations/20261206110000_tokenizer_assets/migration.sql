-- A tokenizer.json may be uploaded (stored once by hash, like a dataset) and a profile may name it
-- instead of a path under TEAPOT_TOKENIZER_DIR: the column holds either form, as JSON ("path" or
-- {"sha256": "..."}); paths stored before stay paths.
ALTER TYPE "AssetKind" ADD VALUE 'tokenizer';

ALTER TABLE "profiles" ALTER COLUMN "tokenizer" TYPE JSONB USING to_jsonb("tokenizer");
