import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { QueryWholeNumber } from '../../common/query';
import {
  ERROR_CLASSES,
  type RequestError,
  type RequestOutcome,
  type TokenCountSource,
} from '@teapot/measure';

export const EXPORT_FORMATS = ['ndjson', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
export const MAX_REQUESTS_PAGE = 500;

export class RunRequestsQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_REQUESTS_PAGE, default: 100 })
  @QueryWholeNumber(1, MAX_REQUESTS_PAGE)
  limit: number = 100;

  @ApiPropertyOptional({ type: 'integer', description: 'The `nextCursor` of the previous page.' })
  @QueryWholeNumber(0, 2 ** 31 - 1, 'cursor must be a cursor this API returned')
  cursor?: number;
}

export class ExportQueryDto {
  @ApiPropertyOptional({ enum: EXPORT_FORMATS, default: 'ndjson' })
  @IsOptional()
  @IsIn(EXPORT_FORMATS)
  format: ExportFormat = 'ndjson';
}

export class RequestErrorDto implements RequestError {
  @ApiProperty({ enum: ERROR_CLASSES, example: 'rate_limited' }) kind!: RequestError['kind'];
  @ApiProperty() message!: string;
  @ApiPropertyOptional() status?: number;
  @ApiPropertyOptional() retryAfterS?: number;
}

export class RequestMetricsDto {
  @ApiProperty({ type: Number, nullable: true, description: 'Request start -> first token chunk.' })
  ttftUs!: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'Request start -> last token chunk.' })
  e2eUs!: number | null;
  @ApiProperty({ type: Number, nullable: true, description: '(t_last - t_first) / (tokens - 1).' })
  tpotUs!: number | null;
  @ApiProperty({ description: 'Tokens whose arrival was timed (in token-carrying chunks).' })
  timedTokens!: number;
  @ApiProperty({
    type: [Number],
    description: "One per token after the first token chunk: a chunk's gap split over its tokens.",
  })
  itlUs!: number[];
  @ApiProperty({ type: [Number], description: 'Gaps between consecutive token-carrying chunks.' })
  interChunkUs!: number[];
}

/** The measurement package's RequestRecord, arrays as JSON arrays, plus what derives from it. */
export class RunRequestDto {
  @ApiProperty() index!: number;
  @ApiProperty() warmup!: boolean;
  @ApiProperty({ enum: ['ok', 'error', 'incomplete'] }) outcome!: RequestOutcome;
  @ApiProperty({ type: RequestErrorDto, nullable: true }) error!: RequestError | null;
  @ApiProperty({ description: 'Intended send time, us from the run anchor.' }) scheduledUs!: number;
  @ApiProperty({ description: 'Actual start, us from the run anchor.' }) startUs!: number;
  @ApiProperty({ type: Number, nullable: true }) ttfbUs!: number | null;
  @ApiProperty({ type: [Number], description: 'Arrival of each chunk, us from request start.' })
  chunkOffsetsUs!: number[];
  @ApiProperty({ type: [Number], description: 'Output tokens carried by each chunk.' })
  chunkTokens!: number[];
  @ApiProperty({
    type: [Number],
    description: 'Kind of each chunk: 0 content, 1 reasoning, 2 tool call, 3 empty.',
  })
  chunkKinds!: number[];
  @ApiProperty({ enum: ['usage_delta', 'usage_final', 'tokenizer', 'chunk'] }) tokenSource!: TokenCountSource;
  @ApiProperty() outputTokens!: number;
  @ApiProperty({ type: Number, nullable: true }) promptTokens!: number | null;
  @ApiProperty({ type: Number, nullable: true }) targetPromptTokens!: number | null;
  @ApiProperty({ type: String, nullable: true }) responseId!: string | null;
  @ApiProperty({ type: String, nullable: true }) finishReason!: string | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Session workloads: the session, numbered from 0 in start order; null otherwise.',
  })
  sessionId!: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'The turn in its session, 0 = first.' })
  turnIndex!: number | null;
  @ApiProperty({ type: RequestMetricsDto }) metrics!: RequestMetricsDto;
}

export class RunRequestPageDto {
  @ApiProperty({ type: [RunRequestDto], description: 'In issue order, warm-up requests included.' })
  items!: RunRequestDto[];

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Pass as `cursor` for the next page; null on the last.',
  })
  nextCursor!: string | null;
}
