import { Body, Query } from '@nestjs/common';
import { ApiBody } from '@nestjs/swagger';
import {
  CreateRoute,
  DeleteRoute,
  GetRoute,
  IdParam,
  ListRoute,
  ResourceController,
  UpdateRoute,
} from '../common/routes';
import { CreateProfileDto, ListProfilesQueryDto, ProfileDto, UpdateProfileDto } from './dto/profile.dto';
import { PROFILE_BODY_EXAMPLES } from './dto/sweep-spec.dto';
import { ProfilesService } from './profiles.service';

@ResourceController('profiles', 'profiles')
export class ProfilesController {
  constructor(private readonly profiles: ProfilesService) {}

  @CreateRoute(ProfileDto)
  @ApiBody({ type: CreateProfileDto, examples: PROFILE_BODY_EXAMPLES })
  create(@Body() input: CreateProfileDto): Promise<ProfileDto> {
    return this.profiles.create(input);
  }

  @ListRoute(ProfileDto, 'Newest first.')
  list(@Query() query: ListProfilesQueryDto) {
    return this.profiles.list(query);
  }

  @GetRoute(ProfileDto)
  get(@IdParam() id: string): Promise<ProfileDto> {
    return this.profiles.get(id);
  }

  @UpdateRoute(ProfileDto)
  update(@IdParam() id: string, @Body() input: UpdateProfileDto): Promise<ProfileDto> {
    return this.profiles.update(id, input);
  }

  @DeleteRoute('Deleted; its runs stay, with the profile snapshot they were run with.')
  remove(@IdParam() id: string): Promise<void> {
    return this.profiles.remove(id);
  }
}
