import { Module } from '@nestjs/common';
import { RetentionService } from './retention.service';

/** The `retention` chore: drops old raw per-token timings on RETENTION_CRON. */
@Module({ providers: [RetentionService], exports: [RetentionService] })
export class RetentionModule {}
