-- A profile may name the model's tokenizer.json (a path under the worker's TEAPOT_TOKENIZER_DIR):
-- prompts are then built and output counted in the model's own tokens.
ALTER TABLE "profiles" ADD COLUMN "tokenizer" TEXT;

-- A run the worker cannot prepare from its configuration (a tokenizer file missing or not a
-- tokenizer at run time) is neither the endpoint failing nor teapot's own fault.
ALTER TYPE "RunErrorClass" ADD VALUE 'configuration';
