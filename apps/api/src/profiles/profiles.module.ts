import { Module } from '@nestjs/common';
import { AssetsModule } from '../assets/assets.module';
import { ProfilesController } from './profiles.controller';
import { ProfilesService } from './profiles.service';

@Module({ imports: [AssetsModule], controllers: [ProfilesController], providers: [ProfilesService] })
export class ProfilesModule {}
