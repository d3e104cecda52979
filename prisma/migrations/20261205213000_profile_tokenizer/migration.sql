-- A profile may name the model's tokenizer.json (a path under the worker's TEAPOT_TOKENIZER_DIR):
-- prompts are then built and output counted in the model's own tokens.
ALTER TABLE "profiles" ADD COLUMN "tokenizer" TEXT;
