import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type as TransformType } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  Matches,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { DATASET_FORMATS, type DatasetFormat, type ProfileWorkload, type ThinkTime } from '@teapot/measure';
import { IsAbsentOr } from '../../common/validators';
import { FINITE, LengthJitter, MAX_INPUT_TOKENS as MAX_TOKENS, MAX_OUTPUT_TOKENS } from './workload-bounds';

const MAX_TURNS = 1_000;
const MAX_THINK_MS = 3_600_000;

/** The profile workload of kind K. */
type Kind<K extends ProfileWorkload['kind']> = Extract<ProfileWorkload, { kind: K }>;

function Count(max: number, description: string, example?: number, min = 1): PropertyDecorator {
  return (target, key) => {
    ApiProperty({ minimum: min, maximum: max, description, example })(target, key);
    IsInt()(target, key);
    Min(min)(target, key);
    Max(max)(target, key);
  };
}

function OptionalCount(max: number, description: string, min = 1): PropertyDecorator {
  return (target, key) => {
    ApiPropertyOptional({ minimum: min, maximum: max, description })(target, key);
    IsAbsentOr()(target, key);
    IsInt()(target, key);
    Min(min)(target, key);
    Max(max)(target, key);
  };
}

export class ThinkTimeDto implements ThinkTime {
  @ApiProperty({
    enum: ['constant', 'exponential'],
    description: 'exponential: memoryless pauses of mean meanMs.',
  })
  @IsIn(['constant', 'exponential'])
  distribution!: 'constant' | 'exponential';

  @ApiProperty({ minimum: 0, maximum: MAX_THINK_MS, example: 2000 })
  @IsNumber(FINITE)
  @Min(0)
  @Max(MAX_THINK_MS)
  meanMs!: number;
}

/** What session workloads share: pauses between turns, and whose answers are sent back. */
class SessionOptionsDto {
  @ApiPropertyOptional({
    type: ThinkTimeDto,
    description: "Pause between a turn's end and the next turn (seeded).",
  })
  @IsAbsentOr()
  @IsObject()
  @ValidateNested()
  @TransformType(() => ThinkTimeDto)
  thinkTime?: ThinkTimeDto;

  @ApiPropertyOptional({
    description:
      "Send the model's own streamed answer back in the next turn (the client then parses every chunk's text); " +
      'default: a synthetic answer as long as the one produced (multi-turn) or the recorded answer (dataset).',
  })
  @IsAbsentOr()
  @IsBoolean()
  actualAnswers?: boolean;
}

export class MultiTurnWorkloadDto extends SessionOptionsDto implements Kind<'multi-turn'> {
  @ApiProperty({ enum: ['multi-turn'] })
  @IsIn(['multi-turn'])
  kind!: 'multi-turn';

  @Count(MAX_TURNS, 'Turns per session; each resends the conversation so far plus a new user message.', 4)
  turns!: number;

  @Count(MAX_TOKENS, 'Tokens of each new user message.', 128)
  inputTokens!: number;

  @Count(MAX_OUTPUT_TOKENS, 'max_tokens of each turn.', 128)
  outputTokens!: number;

  @LengthJitter()
  lengthJitter?: number;

  @OptionalCount(
    MAX_TOKENS,
    'A system prompt of this many tokens, the same for every session, opens each.',
    0,
  )
  systemTokens?: number;
}

export class SharedPrefixWorkloadDto implements Kind<'shared-prefix'> {
  @ApiProperty({ enum: ['shared-prefix'] })
  @IsIn(['shared-prefix'])
  kind!: 'shared-prefix';

  @Count(10_000, 'Distinct prefixes (P).', 8)
  prefixes!: number;

  @Count(MAX_TOKENS, 'Tokens of each prefix (L).', 1024)
  prefixTokens!: number;

  @Count(10_000, 'Requests using each prefix (M), interleaved with the other prefixes.', 16)
  requestsPerPrefix!: number;

  @Count(MAX_TOKENS, "Tokens of each request's own suffix.", 128)
  suffixTokens!: number;

  @Count(MAX_OUTPUT_TOKENS, 'max_tokens of each request.', 128)
  outputTokens!: number;
}

export class DatasetAssetWorkloadDto extends SessionOptionsDto implements Kind<'dataset-asset'> {
  @ApiProperty({ enum: ['dataset-asset'] })
  @IsIn(['dataset-asset'])
  kind!: 'dataset-asset';

  @ApiProperty({
    pattern: '^[0-9a-f]{64}$',
    description:
      'SHA-256 of a dataset uploaded with POST /assets; every conversation is a multi-turn session.',
  })
  @Matches(/^[0-9a-f]{64}$/, { message: 'must be the lowercase hex SHA-256 of an uploaded dataset' })
  sha256!: string;

  @ApiProperty({ enum: DATASET_FORMATS })
  @IsIn(DATASET_FORMATS)
  format!: DatasetFormat;

  @OptionalCount(MAX_OUTPUT_TOKENS, 'max_tokens of turns with neither their own nor a recorded answer.')
  outputTokens?: number;

  @OptionalCount(MAX_TOKENS, "Drop conversations whose first turn's prompt is shorter.")
  minInputTokens?: number;

  @OptionalCount(
    MAX_TOKENS,
    'Cut a conversation before the first turn whose prompt, history included, is longer.',
  )
  maxInputTokens?: number;

  @OptionalCount(MAX_OUTPUT_TOKENS, '... or whose recorded answer is longer.')
  maxOutputTokens?: number;

  @OptionalCount(MAX_TURNS, 'Keep at most this many turns of each conversation.')
  maxTurns?: number;

  @OptionalCount(
    100_000,
    'Send this many conversations, drawn without replacement (seeded); default all, shuffled.',
  )
  sample?: number;

  @OptionalCount(2 ** 31 - 1, "Seed of the draw and order; default the profile's seed.", 0)
  sampleSeed?: number;
}

/** Example bodies of POST /profiles for these workloads (OpenAPI). */
export const SESSION_WORKLOAD_EXAMPLES = {
  multiTurn: {
    kind: 'multi-turn',
    turns: 4,
    inputTokens: 128,
    outputTokens: 128,
    systemTokens: 256,
    thinkTime: { distribution: 'exponential', meanMs: 2000 },
  },
  sharedPrefix: {
    kind: 'shared-prefix',
    prefixes: 8,
    prefixTokens: 1024,
    requestsPerPrefix: 16,
    suffixTokens: 128,
    outputTokens: 128,
  },
  dataset: {
    kind: 'dataset-asset',
    // packages/measure/datasets/teapot-chats.sharegpt.jsonl, the dataset teapot ships (tests upload it)
    sha256: 'b6837d6e3fac115f95220627516f17354cdfc6e0811ed533d4b6721c0d2cd49c',
    format: 'sharegpt',
    maxInputTokens: 4096,
    sample: 20,
  },
} as const;
