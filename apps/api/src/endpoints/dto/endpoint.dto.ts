import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, OmitType, PartialType } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import { PageQueryDto } from '../../common/pagination';
import { QueryArray, QueryBoolean } from '../../common/query';
import { IsAbsentOr, IsHeaderMap, IsName } from '../../common/validators';
import { ServingConfigObject } from '../../serving-configs/dto/serving-config-object';
import { CreateServingConfigDto } from '../../serving-configs/dto/serving-config.dto';

export const API_KINDS = ['chat', 'completions'] as const;
export type ApiKindValue = (typeof API_KINDS)[number];

const TAG = /^[A-Za-z0-9_.:/=-]{1,64}$/;

/** A map of header name to value a request sets (auth, metrics): stored encrypted, shown as names only. */
function HeaderMapInput(example: string, use: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      type: 'object',
      additionalProperties: { type: 'string' },
      example: { authorization: example },
      description: `${use} Stored encrypted; responses show the names only.`,
    }),
    IsAbsentOr(),
    IsHeaderMap(),
  );
}

/** A stored header map as responses show it: the names, each value masked. */
function MaskedHeaderMap(which: string): PropertyDecorator {
  return ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string', enum: ['****'] },
    example: { authorization: '****' },
    description: `Names of the stored ${which} headers; values are never returned.`,
  });
}

export class CreateEndpointDto {
  @ApiProperty({ example: 'llama-8b-h100-fp8', maxLength: 200, description: 'Unique.' })
  @IsName(200)
  name!: string;

  @ApiProperty({
    example: 'http://10.0.0.7:8000/v1',
    description:
      'Up to and including the version segment; a query string (e.g. `?api-version=`) is kept and sent. ' +
      'Public and private addresses are allowed; loopback only when TEAPOT_ENDPOINT_URL_ALLOW includes it; ' +
      'link-local and cloud metadata never.',
  })
  @IsString()
  @MaxLength(2048)
  @Matches(/^[^#]*$/, { message: 'baseUrl must not have a #fragment: it is never sent to the server' })
  baseUrl!: string;

  @ApiProperty({ enum: API_KINDS })
  @IsIn(API_KINDS)
  apiKind!: ApiKindValue;

  @ApiProperty({ example: 'meta-llama/Llama-3.1-8B-Instruct', maxLength: 200 })
  @IsName(200)
  model!: string;

  @HeaderMapInput('Bearer sk-...', 'Sent with every benchmark request.')
  authHeaders?: Record<string, string>;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'http://10.0.0.7:8000/metrics',
    description:
      "The server's own Prometheus metrics (vLLM, SGLang, TGI serve them at /metrics), scraped while a run " +
      'measures to explain its latency (runs.serverDiagnostics). The same URL policy as baseUrl; null clears it.',
  })
  @ValidateIf((_object, value) => value !== undefined && value !== null)
  @IsString()
  @MaxLength(2048)
  @Matches(/^[^#]*$/, { message: 'metricsUrl must not have a #fragment: it is never sent to the server' })
  metricsUrl?: string | null;

  @HeaderMapInput('Bearer metrics-token', 'Sent with every metrics scrape.')
  metricsHeaders?: Record<string, string>;

  @ApiPropertyOptional({ type: [String], example: ['h100', 'prod'], maxItems: 50 })
  @IsAbsentOr()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @Matches(TAG, { each: true, message: 'tags must be 1-64 characters of letters, digits and _ . : / = -' })
  tags?: string[];

  @ServingConfigObject('Becomes serving configuration version 1.')
  config?: CreateServingConfigDto;
}

export class UpdateEndpointDto extends PartialType(OmitType(CreateEndpointDto, ['config'] as const), {
  skipNullProperties: false,
}) {
  @ApiPropertyOptional({ description: 'true archives (hides from lists, no new runs); false restores.' })
  @IsAbsentOr()
  @IsBoolean()
  archived?: boolean;
}

export class ListEndpointsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ type: [String], description: 'Endpoints carrying every one of these tags.' })
  @QueryArray(20)
  @Matches(TAG, { each: true, message: 'tag must be 1-64 characters of letters, digits and _ . : / = -' })
  tag?: string[];

  @ApiPropertyOptional({ description: 'Part of the name, case-insensitive.' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  name?: string;

  @ApiPropertyOptional({ default: false })
  @QueryBoolean()
  includeArchived?: boolean;
}

export class DeleteEndpointQueryDto {
  @ApiPropertyOptional({
    default: false,
    description: 'Archive instead of deleting: needed once runs reference the endpoint.',
  })
  @QueryBoolean()
  archive?: boolean;
}

export class EndpointDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() baseUrl!: string;
  @ApiProperty({ enum: API_KINDS }) apiKind!: ApiKindValue;
  @ApiProperty() model!: string;

  @MaskedHeaderMap('auth') authHeaders!: Record<string, string>;

  @ApiProperty({ type: String, nullable: true, example: 'http://10.0.0.7:8000/metrics' })
  metricsUrl!: string | null;

  @MaskedHeaderMap('metrics') metricsHeaders!: Record<string, string>;

  @ApiProperty({ type: [String] }) tags!: string[];
  @ApiProperty({ type: Date, nullable: true }) archivedAt!: Date | null;
  @ApiProperty() createdAt!: Date;
  @ApiProperty() updatedAt!: Date;
}
