import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { IsName } from '../../common/validators';

export const API_KEY_SCOPES = ['read', 'write'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export class CreateApiKeyDto {
  @ApiProperty({ example: 'grafana dashboards', maxLength: 100 })
  @IsName(100)
  name!: string;

  @ApiProperty({
    enum: API_KEY_SCOPES,
    description: 'read: GET routes only (but not the key list); write: every route.',
  })
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

  @ApiProperty({
    example: '3f9a0c12',
    description:
      'Tells keys apart without revealing any: the first 8 hex characters of the SHA-256 of the key (`printf %s "$KEY" | sha256sum | cut -c1-8`).',
  })
  fingerprint!: string;

  @ApiProperty({
    description: 'The key came from TEAPOT_API_KEY; setting a new value revokes it at the next start.',
  })
  bootstrap!: boolean;

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
