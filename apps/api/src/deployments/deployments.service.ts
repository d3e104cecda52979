import { ConflictException, Injectable, Logger } from '@nestjs/common';
import {
  DEFAULT_INCLUDE_SATURATED,
  DEPLOYMENT_SETTINGS,
  type DeploymentVerification,
} from '@teapot/contracts';
import {
  createQueuedRun,
  createQueuedSweep,
  type Deployment,
  type Prisma,
  type Profile,
  type Run,
  type ServingConfig,
  type Sweep,
} from '@teapot/db';
import { AnalysisQueueProducer, RunQueueProducer, SweepQueueProducer } from '@teapot/jobs';
import { keysetPage, type Page } from '../common/pagination';
import { ENQUEUE_TIMEOUT_MS } from '../common/launch';
import { withTimeout } from '../common/timeout';
import { parseTimestamp } from '../common/parse';
import {
  MissingReferenceException,
  RequestValidationException,
} from '../errors/request-validation.exception';
import { PrismaService } from '../prisma/prisma.service';
import { addServingConfigVersion, retryVersionRace } from '../serving-configs/serving-configs.service';
import type { CreateDeploymentDto, DeploymentDto, ListDeploymentsQueryDto } from './dto/deployment.dto';
import { orNotFound } from '../common/not-found';
import { pick } from '../common/pick';

/** Clocks disagree a little: an effectiveAt this far ahead of ours is still "now". */
const FUTURE_SKEW_MS = 60_000;

type DeploymentRow = Deployment & {
  config: ServingConfig | null;
  runs: Array<Pick<Run, 'id' | 'profileId' | 'status'>>;
  sweeps: Array<Pick<Sweep, 'id' | 'profileId' | 'status'>>;
};

const QUEUED = { select: { id: true, profileId: true, status: true }, orderBy: { queuedAt: 'asc' as const } };
// A sweep's points carry its deployment too: they are listed under the sweep, not as runs.
const WITH_RUNS = { config: true, runs: { ...QUEUED, where: { sweepId: null } }, sweeps: QUEUED };

/** A profile a deployment can be verified with: single-load, or a capacity search (a list of points has no capacity). */
function verifiable(profile: Profile): boolean {
  return profile.sweep === null || (profile.sweep as { kind?: string }).kind === 'capacity';
}

@Injectable()
export class DeploymentsService {
  private readonly logger = new Logger(DeploymentsService.name);

  constructor(
    private readonly prisma: PrismaService,
    private readonly runQueue: RunQueueProducer,
    private readonly analysisQueue: AnalysisQueueProducer,
    private readonly sweepQueue: SweepQueueProducer,
  ) {}

  /**
   * Records the deployment, its configuration version and its queued runs in one transaction, then
   * queues their jobs. Should Redis refuse, the rows stay: the worker's reaper queues runs without a
   * job and its verification sweep queues deployments still pending, so nothing is lost.
   */
  async create(input: CreateDeploymentDto): Promise<DeploymentDto> {
    const now = Date.now();
    // The DTO checked the text, so it parses.
    const effectiveAt = input.effectiveAt ? (parseTimestamp(input.effectiveAt) as Date) : new Date(now);
    if (effectiveAt.getTime() > now + FUTURE_SKEW_MS) {
      throw new RequestValidationException([
        { field: 'effectiveAt', problem: 'must not be in the future: announce a deployment once it is live' },
      ]);
    }
    const endpoint = await this.prisma.endpoint.findUnique({
      where: { id: input.endpointId },
      include: { profiles: { orderBy: { createdAt: 'asc' } } },
    });
    if (!endpoint)
      throw new MissingReferenceException([{ field: 'endpointId', problem: 'names no endpoint' }]);
    if (endpoint.archivedAt) {
      throw new ConflictException(
        `Endpoint ${endpoint.id} is archived; restore it (PATCH /endpoints/${endpoint.id} {"archived": false}) to deploy on it.`,
      );
    }
    const settings = input.settings ?? {};
    let profiles = endpoint.profiles.filter((profile) => profile.enabled && verifiable(profile));
    if (settings.profileIds) {
      const named = new Set(settings.profileIds);
      profiles = endpoint.profiles.filter((profile) => named.has(profile.id));
      const existing = await this.prisma.profile.count({ where: { id: { in: [...named] } } });
      if (existing !== named.size) {
        throw new MissingReferenceException([{ field: 'settings.profileIds', problem: 'names no profile' }]);
      }
      if (profiles.length !== named.size) {
        throw new RequestValidationException([
          { field: 'settings.profileIds', problem: `must name profiles of endpoint ${endpoint.id}` },
        ]);
      }
      const points = profiles.find((profile) => !verifiable(profile));
      if (points) {
        throw new RequestValidationException([
          {
            field: 'settings.profileIds',
            problem: `names sweep profile ${points.id}, a list of points: only a capacity search has a capacity to verify`,
          },
        ]);
      }
    }
    if (profiles.length === 0) {
      throw new RequestValidationException([
        {
          field: 'settings.profileIds',
          problem: `is empty: endpoint ${endpoint.id} has no enabled single-load or capacity-search profile to verify the deployment with (POST /profiles first)`,
        },
      ]);
    }
    const runsPerProfile = settings.runsPerProfile ?? DEPLOYMENT_SETTINGS.runsPerProfile.default;
    const firstRunDelayS = settings.firstRunDelayS ?? DEPLOYMENT_SETTINGS.firstRunDelayS.default;

    const { deployment, runs, sweeps } = await retryVersionRace(() =>
      this.prisma.$transaction(async (tx) => {
        const config = input.config ? await addServingConfigVersion(tx, endpoint.id, input.config) : null;
        const deployment = await tx.deployment.create({
          data: {
            endpointId: endpoint.id,
            label: input.label,
            version: input.version ?? null,
            configId: config?.id ?? null,
            effectiveAt,
            runsPerProfile,
            profileIds: profiles.map((profile) => profile.id),
            firstRunDelayS,
            baselineRuns: settings.baselineRuns ?? DEPLOYMENT_SETTINGS.baselineRuns.default,
            threshold: settings.threshold ?? DEPLOYMENT_SETTINGS.threshold.default,
            includeSaturated: settings.includeSaturated ?? DEFAULT_INCLUDE_SATURATED,
          },
        });
        // Round-robin over the profiles, so an interrupted series still has runs of each; a sweep
        // profile's turn is a whole capacity search.
        const runs: Run[] = [];
        const sweeps: Sweep[] = [];
        for (let round = 0; round < runsPerProfile; round++) {
          for (const profile of profiles) {
            const queued = { deploymentId: deployment.id };
            if (profile.sweep === null) runs.push(await createQueuedRun(tx, profile, 'deployment', queued));
            else sweeps.push(await createQueuedSweep(tx, profile, 'deployment', queued));
          }
        }
        return { deployment, runs, sweeps };
      }),
    );

    const firstRunAtMs = Math.max(now, effectiveAt.getTime()) + firstRunDelayS * 1000;
    try {
      await withTimeout(
        (async () => {
          await this.runQueue.enqueueRuns(runs.map((run) => ({ runId: run.id, runAtMs: firstRunAtMs })));
          for (const sweep of sweeps)
            await this.sweepQueue.enqueueAdvance(sweep.id, 0, { runAtMs: firstRunAtMs });
          await this.analysisQueue.enqueueVerification(deployment.id, firstRunAtMs - Date.now());
        })(),
        ENQUEUE_TIMEOUT_MS,
        'Redis',
      );
    } catch (error) {
      this.logger.warn(
        `deployment ${deployment.id}: jobs not queued (${error instanceof Error ? error.message : String(error)}); the worker's sweeps will queue them`,
      );
    }
    return this.get(deployment.id);
  }

  list(query: ListDeploymentsQueryDto): Promise<Page<DeploymentDto>> {
    const effectiveAt: Prisma.DateTimeFilter = {
      ...(query.from ? { gte: parseTimestamp(query.from) as Date } : {}),
      ...(query.to ? { lt: parseTimestamp(query.to) as Date } : {}),
    };
    const verdicts = query.verdict?.filter((v) => v !== 'pending');
    const pending = query.verdict?.includes('pending');
    const where: Prisma.DeploymentWhereInput = {
      ...(query.endpointId ? { endpointId: query.endpointId } : {}),
      ...(query.from || query.to ? { effectiveAt } : {}),
      ...(query.verdict
        ? {
            OR: [
              ...(verdicts?.length ? [{ verdict: { in: verdicts } }] : []),
              ...(pending ? [{ verdict: null }] : []),
            ],
          }
        : {}),
    };
    return keysetPage(
      'effectiveAt',
      query,
      where,
      (args) => this.prisma.deployment.findMany({ ...args, include: WITH_RUNS }),
      toDeploymentDto,
    );
  }

  async get(id: string): Promise<DeploymentDto> {
    const row = orNotFound(
      await this.prisma.deployment.findUnique({ where: { id }, include: WITH_RUNS }),
      `No deployment ${id}.`,
    );
    return toDeploymentDto(row);
  }
}

// prettier-ignore
const DEPLOYMENT_FIELDS = [
  'id', 'endpointId', 'label', 'version', 'config', 'effectiveAt', 'verifiedAt', 'runs', 'sweeps', 'createdAt',
] as const;
// prettier-ignore
const SETTINGS_FIELDS = [
  'runsPerProfile', 'profileIds', 'firstRunDelayS', 'baselineRuns', 'threshold', 'includeSaturated',
] as const;

function toDeploymentDto(row: DeploymentRow): DeploymentDto {
  return {
    ...pick(row, DEPLOYMENT_FIELDS),
    settings: pick(row, SETTINGS_FIELDS),
    verdict: row.verdict ?? 'pending',
    verification: row.verification as DeploymentVerification | null,
  };
}
