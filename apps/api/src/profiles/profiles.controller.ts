import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Access } from '../auth/access.decorator';
import { PageOf } from '../common/pagination';
import { uuidParam } from '../common/params';
import { ErrorBody } from '../errors/error-body';
import { CreateProfileDto, ListProfilesQueryDto, ProfileDto, UpdateProfileDto } from './dto/profile.dto';
import { ProfilesService } from './profiles.service';

const ProfilePage = PageOf(ProfileDto);

@ApiTags('profiles')
@ApiBadRequestResponse({ type: ErrorBody })
@Controller('profiles')
export class ProfilesController {
  constructor(private readonly profiles: ProfilesService) {}

  @Post()
  @Access('write')
  @ApiCreatedResponse({ type: ProfileDto })
  create(@Body() input: CreateProfileDto): Promise<ProfileDto> {
    return this.profiles.create(input);
  }

  @Get()
  @Access('read')
  @ApiOkResponse({ type: ProfilePage, description: 'Newest first.' })
  list(@Query() query: ListProfilesQueryDto) {
    return this.profiles.list(query);
  }

  @Get(':id')
  @Access('read')
  @ApiNotFoundResponse({ type: ErrorBody })
  @ApiOkResponse({ type: ProfileDto })
  get(@Param('id', uuidParam('id')) id: string): Promise<ProfileDto> {
    return this.profiles.get(id);
  }

  @Patch(':id')
  @Access('write')
  @ApiNotFoundResponse({ type: ErrorBody })
  @ApiOkResponse({ type: ProfileDto })
  update(@Param('id', uuidParam('id')) id: string, @Body() input: UpdateProfileDto): Promise<ProfileDto> {
    return this.profiles.update(id, input);
  }

  @Delete(':id')
  @Access('write')
  @HttpCode(204)
  @ApiNoContentResponse({
    description: 'Deleted; its runs stay, with the profile snapshot they were run with.',
  })
  @ApiNotFoundResponse({ type: ErrorBody })
  remove(@Param('id', uuidParam('id')) id: string): Promise<void> {
    return this.profiles.remove(id);
  }
}
