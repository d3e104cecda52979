import { Inject, Injectable } from '@nestjs/common';
import type { ApiEnv } from '@teapot/config';
import { ModelTokenizer, readTokenizerIn, TokenizerFileError } from '@teapot/tokenizer';
import { API_ENV } from '../env/env.module';
import { checkThresholds } from '@teapot/analysis';
import type { SweepSpec } from '@teapot/contracts';
import { Prisma, type Profile } from '@teapot/db';
import {
  measuredWorkload,
  type Load,
  type ProfileTokenizer,
  type ProfileWorkload,
  type Slo,
} from '@teapot/measure';
import { asBadRequest, AssetsService, readDataset } from '../assets/assets.service';
import type { AssetKindName } from '../assets/dto/asset.dto';
import { keysetPage, type Page } from '../common/pagination';
import type { ProblemDetail } from '../errors/error-body';
import {
  MissingReferenceException,
  RequestValidationException,
} from '../errors/request-validation.exception';
import { PrismaService } from '../prisma/prisma.service';
import type { CreateProfileDto, ListProfilesQueryDto, ProfileDto, UpdateProfileDto } from './dto/profile.dto';
import { orNotFound } from '../common/not-found';
import { shortestCronGapS } from '../common/validators';
import { sweepDuration } from './sweep-duration';

type ScheduleAndBounds = Pick<
  Profile,
  'requestCount' | 'durationS' | 'scheduleCron' | 'scheduleIntervalS'
> & {
  /** A trace ends with its last line: it needs neither bound. */
  replaysTrace: boolean;
};

@Injectable()
export class ProfilesService {
  constructor(
    private readonly prisma: PrismaService,
    @Inject(API_ENV) private readonly env: ApiEnv,
    private readonly assets: AssetsService,
  ) {}

  /**
   * A workload naming an uploaded file: the file must be stored as that kind and read (a dataset in the
   * format named, leaving at least one conversation through the filters); a 400 naming the field
   * otherwise, a 404 when nothing is stored under the hash.
   */
  private async assertAssetUsable(workload: ProfileWorkload, seed: number | null): Promise<void> {
    if (workload.kind !== 'dataset-asset' && workload.kind !== 'trace-asset') return;
    const kind = workload.kind === 'dataset-asset' ? 'dataset' : 'trace';
    const bytes = await this.assets.bytesOf(workload.sha256, kind);
    if (bytes === null) {
      // none of that kind: say whether the hash names nothing (404) or another kind (400); if it was
      // uploaded meanwhile, read it as stored now
      await this.assertAssetKind('workload.sha256', workload.sha256, kind);
      return this.assertAssetUsable(workload, seed);
    }
    if (workload.kind === 'dataset-asset') readDataset(bytes, workload.format, 'workload.format');
    asBadRequest('workload', () => measuredWorkload(workload, seed ?? 0, bytes.toString('utf8')));
  }

  async create(input: CreateProfileDto): Promise<ProfileDto> {
    await this.checkTokenizer(input.tokenizer);
    assertCoherent({
      replaysTrace: input.workload.kind === 'trace-asset',
      requestCount: input.requestCount ?? null,
      durationS: input.durationS ?? null,
      scheduleCron: input.scheduleCron ?? null,
      scheduleIntervalS: input.scheduleIntervalS ?? null,
    });
    // Keys and values against the metric catalogue; the error filter makes it a 400 naming the key.
    if (input.comparisonThresholds) checkThresholds(input.comparisonThresholds, 'comparisonThresholds');
    const endpoint = await this.prisma.endpoint.count({ where: { id: input.endpointId } });
    if (!endpoint)
      throw new MissingReferenceException([{ field: 'endpointId', problem: 'names no endpoint' }]);
    assertTraceLoad(input.workload, input.load, input.sweep ?? null);
    await this.assertAssetUsable(input.workload, input.seed ?? null);
    const { workload, load, slo, comparisonThresholds, sweep, tokenizer, ...fields } = input;
    // A sweep is checked against the row as stored (database defaults in), and rolled back if it does not fit.
    const profile = await this.prisma.$transaction(async (tx) =>
      assertSweepFits(
        await tx.profile.create({
          data: {
            ...fields,
            workload: toJson(workload),
            load: toJson(load),
            sweep: nullableJson(sweep),
            tokenizer: nullableJson(tokenizer),
            ...(slo ? { slo: toJson(slo) } : {}),
            ...(comparisonThresholds ? { comparisonThresholds: toJson(comparisonThresholds) } : {}),
          },
        }),
      ),
    );
    return toProfileDto(profile);
  }

  list(query: ListProfilesQueryDto): Promise<Page<ProfileDto>> {
    const where: Prisma.ProfileWhereInput = query.endpointId ? { endpointId: query.endpointId } : {};
    return keysetPage('createdAt', query, where, (args) => this.prisma.profile.findMany(args), toProfileDto);
  }

  async get(id: string): Promise<ProfileDto> {
    return toProfileDto(await this.find(id));
  }

  /** Checks the profile as it will be after the change, so a patch cannot break its coherence. */
  async update(id: string, input: UpdateProfileDto): Promise<ProfileDto> {
    const current = await this.find(id);
    await this.checkTokenizer(input.tokenizer);
    // Keys and values against the metric catalogue; the error filter makes it a 400 naming the key.
    if (input.comparisonThresholds) checkThresholds(input.comparisonThresholds, 'comparisonThresholds');
    const nextWorkload = input.workload ?? (current.workload as unknown as ProfileWorkload);
    assertCoherent({
      replaysTrace: nextWorkload.kind === 'trace-asset',
      requestCount: input.requestCount === undefined ? current.requestCount : input.requestCount,
      durationS: input.durationS === undefined ? current.durationS : input.durationS,
      scheduleCron: input.scheduleCron === undefined ? current.scheduleCron : input.scheduleCron,
      scheduleIntervalS:
        input.scheduleIntervalS === undefined ? current.scheduleIntervalS : input.scheduleIntervalS,
    });
    assertTraceLoad(
      nextWorkload,
      input.load ?? (current.load as unknown as Load),
      input.sweep === undefined ? current.sweep : input.sweep,
    );
    if (input.workload) await this.assertAssetUsable(input.workload, input.seed ?? current.seed);
    const { workload, load, slo, comparisonThresholds, sweep, tokenizer, ...fields } = input;
    const profile = await this.prisma.$transaction(async (tx) =>
      assertSweepFits(
        await tx.profile.update({
          where: { id },
          data: {
            ...fields,
            ...(workload ? { workload: toJson(workload) } : {}),
            ...(load ? { load: toJson(load) } : {}),
            sweep: nullableJson(sweep),
            tokenizer: nullableJson(tokenizer),
            ...(slo ? { slo: toJson(slo) } : {}),
            ...(comparisonThresholds ? { comparisonThresholds: toJson(comparisonThresholds) } : {}),
          },
        }),
      ),
    );
    return toProfileDto(profile);
  }

  /** Runs of the profile stay (they carry its snapshot); they just lose the link. */
  async remove(id: string): Promise<void> {
    await this.find(id);
    await this.prisma.profile.delete({ where: { id } });
  }

  /**
   * An uploaded tokenizer must be stored as one (a 400 naming `tokenizer.sha256` otherwise: it was
   * checked to load when uploaded). A path is checked where this API can see TEAPOT_TOKENIZER_DIR
   * (a 400 naming `tokenizer`); the worker reads it again at every run, from its own directory.
   */
  /**
   * `field` names an asset of `kind`: a 404 when nothing is stored under `sha256` (as for an unknown
   * endpointId), a 400 when what is stored there is another kind.
   */
  private async assertAssetKind(field: string, sha256: string, kind: AssetKindName): Promise<void> {
    const stored = await this.assets.kindOf(sha256);
    if (stored === kind) return;
    const upload = `upload it with POST /assets?kind=${kind}`;
    if (stored === null)
      throw new MissingReferenceException([
        { field, problem: `names no uploaded ${kind} (${upload} first)` },
      ]);
    throw new RequestValidationException([
      { field, problem: `names an uploaded ${stored}, not a ${kind} (${upload})` },
    ]);
  }

  private async checkTokenizer(tokenizer: ProfileTokenizer | null | undefined): Promise<void> {
    if (tokenizer === null || tokenizer === undefined) return;
    if (typeof tokenizer !== 'string')
      return this.assertAssetKind('tokenizer.sha256', tokenizer.sha256, 'tokenizer');
    const dir = this.env.TEAPOT_TOKENIZER_DIR;
    if (dir === undefined) return;
    try {
      const source = readTokenizerIn(dir, tokenizer);
      ModelTokenizer.fromBytes(source.bytes, source.name);
    } catch (error) {
      if (!(error instanceof TokenizerFileError)) throw error;
      throw new RequestValidationException([{ field: 'tokenizer', problem: error.message }]);
    }
  }

  private async find(id: string): Promise<Profile> {
    return orNotFound(await this.prisma.profile.findUnique({ where: { id } }), `No profile ${id}.`);
  }
}

function assertCoherent(profile: ScheduleAndBounds): void {
  const problems: ProblemDetail[] = [];
  if (profile.requestCount === null && profile.durationS === null && !profile.replaysTrace) {
    problems.push({
      field: 'requestCount',
      problem: 'or durationS must be set: a run needs an end (only a trace-asset workload ends by itself)',
    });
  }
  if (profile.scheduleCron !== null && profile.scheduleIntervalS !== null) {
    problems.push({
      field: 'scheduleCron',
      problem: 'and scheduleIntervalS are exclusive: set one schedule',
    });
  }
  if (problems.length) throw new RequestValidationException(problems);
}

/** A trace sends on its own timestamps: it needs an open load (whose maxConcurrency still applies) and no sweep. */
function assertTraceLoad(workload: ProfileWorkload, load: Load, sweep: unknown): void {
  if (workload.kind !== 'trace-asset') return;
  const problems: ProblemDetail[] = [];
  if (load.kind !== 'open')
    problems.push({
      field: 'load.kind',
      problem:
        "must be open for a trace-asset workload: the trace's timestamps are the arrivals (maxConcurrency caps requests in flight)",
    });
  if (sweep !== null)
    problems.push({
      field: 'sweep',
      problem: 'cannot vary the load of a trace-asset workload: it sets its own arrivals',
    });
  if (problems.length) throw new RequestValidationException(problems);
}

/** A nullable Json column as Prisma input: absent leaves it, null clears it (SQL NULL), a value is stored. */
function nullableJson(
  value: object | string | null | undefined,
): Prisma.InputJsonValue | typeof Prisma.DbNull | undefined {
  if (value === undefined) return undefined;
  return value === null ? Prisma.DbNull : (JSON.parse(JSON.stringify(value)) as Prisma.InputJsonValue);
}

/**
 * A scheduled sweep must end before its next slot: its longest duration (sweepDuration) against the
 * interval, or the shortest gap of the cron schedule. Returns the profile when it fits.
 */
function assertSweepFits(profile: Profile): Profile {
  const sweep = profile.sweep as SweepSpec | null;
  const intervalS =
    profile.scheduleIntervalS ??
    (profile.scheduleCron === null ? null : shortestCronGapS(profile.scheduleCron));
  if (sweep === null || intervalS === null) return profile;
  const duration = sweepDuration(sweep, { ...profile, load: profile.load as unknown as Load });
  if (!duration.bounded) {
    throw new RequestValidationException([
      {
        field: 'durationS',
        problem:
          'is required for a scheduled sweep of concurrency points: a point measured by requestCount alone ' +
          'has no bound on how long it takes, so it could overrun its next slot',
      },
    ]);
  }
  if (duration.seconds > intervalS) {
    throw new RequestValidationException([
      {
        field: 'sweep',
        problem:
          `takes up to ${duration.seconds} s (${duration.how}), longer than the schedule's ${intervalS} s between ` +
          'slots: measure fewer or shorter points (points, maxPoints, requestCount, durationS, timeoutMs) or schedule less often',
      },
    ]);
  }
  return profile;
}

/** DTO instances as plain JSON values for the Json columns. */
function toJson(value: object): Prisma.InputJsonObject {
  return JSON.parse(JSON.stringify(value)) as Prisma.InputJsonObject;
}

export function toProfileDto(profile: Profile): ProfileDto {
  return {
    ...profile,
    workload: profile.workload as unknown as ProfileWorkload,
    load: profile.load as unknown as Load,
    slo: profile.slo as Slo,
    comparisonThresholds: profile.comparisonThresholds as Record<string, number>,
    sweep: profile.sweep as SweepSpec | null,
    tokenizer: profile.tokenizer as ProfileTokenizer | null,
  };
}
