import { Module } from '@nestjs/common';
import { SweepsController } from './sweeps.controller';
import { SweepsService } from './sweeps.service';

@Module({ controllers: [SweepsController], providers: [SweepsService] })
export class SweepsModule {}
