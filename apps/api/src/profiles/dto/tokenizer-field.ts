import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import type { ProfileTokenizer } from '@teapot/measure';
import { invalidTokenizerPath, MAX_TOKENIZER_PATH_LENGTH } from '@teapot/tokenizer';
import { SchemaField, type SharedSchema } from '../../common/schema-field';
import { isPlainObject } from '../../common/validators';

const SHA256 = /^[0-9a-f]{64}$/;

/** Both forms, for the OpenAPI document. */
const tokenizerSchemaDoc = {
  oneOf: [
    {
      type: 'string',
      maxLength: MAX_TOKENIZER_PATH_LENGTH,
      description: 'A path relative to TEAPOT_TOKENIZER_DIR (no `..`, no absolute path).',
      example: 'llama-3.1-8b/tokenizer.json',
    },
    {
      type: 'object',
      required: ['sha256'],
      additionalProperties: false,
      properties: {
        sha256: {
          type: 'string',
          pattern: SHA256.source,
          description: 'SHA-256 of a tokenizer.json uploaded with POST /assets?kind=tokenizer.',
        },
      },
      example: { sha256: '3f0d24e0d0e5b0a2b1d9c6d1e51e8d5b8c8f3d9b9e3a3b1c5f2f0a9d6e7c8b4a' },
    },
  ],
};

type Issue = { code: string; path: string[]; message: string };
const problem = (path: string[], message: string) => ({
  success: false as const,
  error: { issues: [{ code: 'custom', path, message }] as Issue[] },
});

/**
 * A profile's tokenizer, either form, checked at the boundary with each problem at the field it names
 * (`tokenizer`, or `tokenizer.sha256`); whether the hash names an uploaded tokenizer is the service's
 * check. Keys other than `sha256` are dropped here, so SchemaField refuses them by name.
 */
const tokenizerField: SharedSchema<ProfileTokenizer> = {
  safeParse(value: unknown) {
    if (typeof value === 'string') {
      const invalid = invalidTokenizerPath(value);
      return invalid === null ? { success: true, data: value } : problem([], invalid);
    }
    if (!isPlainObject(value))
      return problem(
        [],
        'must be a path under TEAPOT_TOKENIZER_DIR or {"sha256": "..."} naming an uploaded tokenizer',
      );
    const { sha256 } = value;
    if (sha256 === undefined) return problem(['sha256'], 'is required');
    if (typeof sha256 !== 'string' || !SHA256.test(sha256))
      return problem(
        ['sha256'],
        'must be the lowercase hex SHA-256 of a tokenizer uploaded with POST /assets',
      );
    return { success: true, data: { sha256 } };
  },
};

const DESCRIPTION =
  "The model's Hugging Face tokenizer.json: a path relative to TEAPOT_TOKENIZER_DIR (checked there when the API " +
  'has the directory, read by the worker at every run), or `{"sha256": ...}` of one uploaded with ' +
  'POST /assets?kind=tokenizer (checked to be a tokenizer at upload, stored once). Synthetic and shared-prefix ' +
  "prompts are then exactly their length in the model's tokens, and output the server reports no usage for is " +
  'counted with it. null (default): word-count prompts and the server usage only.';

/** The `tokenizer` field of a profile's create and update bodies. */
export function TokenizerField(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ ...tokenizerSchemaDoc, nullable: true, description: DESCRIPTION }),
    IsOptional(),
    SchemaField(tokenizerField),
  );
}

/** The `tokenizer` of a profile as returned. */
export function TokenizerProperty(): PropertyDecorator {
  return ApiProperty({
    ...tokenizerSchemaDoc,
    nullable: true,
    description: 'As set: a path, or an upload by hash.',
  });
}
