import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { IsName } from '../../common/validators';

export const API_KEY_SCOPES = ['read', 'write'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export class CreateApiKeyDto {
  @ApiProperty({ example: 'grafana dashboards', maxLength: 100 })
  @IsName(100)
  name!: string;

  @ApiProperty({ enum: API_KEY_SCOPES, description: 'read: GET routes only; write: every route.' })
  @IsIn(API_KEY_SCOPES)
  scope!: ApiKeyScope;
}

export class ApiKeyDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({ enum: API_KEY_SCOPES })
  scope!: ApiKeyScope;

  @ApiProperty({ example: 'tpk_3q2x', description: 'The first characters of the key, to tell keys apart.' })
  keyPrefix!: string;

  @ApiProperty()
  createdAt!: Date;

  @ApiPropertyOptional({ type: Date, nullable: true })
  lastUsedAt!: Date | null;

  @ApiPropertyOptional({ type: Date, nullable: true })
  revokedAt!: Date | null;
}

export class CreatedApiKeyDto extends ApiKeyDto {
  @ApiProperty({ description: 'The key itself. Shown only in this response: store it now.' })
  key!: string;
}

export class ApiKeyListDto {
  @ApiProperty({ type: [ApiKeyDto] })
  items!: ApiKeyDto[];
}
