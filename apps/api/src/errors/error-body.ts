import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class ProblemDetail {
  @ApiProperty({ example: 'load.concurrency', description: 'Path of the offending field in the input.' })
  field!: string;

  @ApiProperty({ example: 'must not be less than 1' })
  problem!: string;
}

/** The one error shape every route returns. */
export class ErrorBody {
  @ApiProperty({ example: 400 })
  statusCode!: number;

  @ApiProperty({ example: 'Bad Request' })
  error!: string;

  @ApiProperty({ example: 'Validation failed: load.concurrency must not be less than 1' })
  message!: string;

  @ApiPropertyOptional({ type: [ProblemDetail] })
  details?: ProblemDetail[];
}
