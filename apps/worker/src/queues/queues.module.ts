import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { QueueWorkers } from './queue-workers.service';

/** The queue workers of this process; each queue's processor lives in its own module. */
@Global()
@Module({ imports: [DiscoveryModule], providers: [QueueWorkers], exports: [QueueWorkers] })
export class QueuesModule {}
