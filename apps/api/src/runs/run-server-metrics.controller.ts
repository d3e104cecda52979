import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { increaseSoFar } from '@teapot/server-metrics';
import { GetRoute, IdParam } from '../common/routes';
import { orNotFound } from '../common/not-found';
import { PrismaService } from '../prisma/prisma.service';
import { RunServerMetricsDto, type ServerDiagnosticsDto } from './dto/server-metrics.dto';

@ApiTags('runs')
@Controller('runs/:id/server-metrics')
export class RunServerMetricsController {
  constructor(private readonly prisma: PrismaService) {}

  @GetRoute(
    RunServerMetricsDto,
    '',
    "The server's own metrics as scraped while the run measured (the endpoint's metricsUrl), over the run's " +
      'time, with the diagnostics derived from them; empty series when none were scraped.',
  )
  async get(@IdParam() id: string): Promise<RunServerMetricsDto> {
    const run = orNotFound(
      await this.prisma.run.findUnique({
        where: { id },
        select: { serverDiagnostics: true, serverSamples: { select: { offsetsMs: true, series: true } } },
      }),
      `No run ${id}.`,
    );
    const stored = (run.serverSamples?.series ?? {}) as Partial<
      Omit<RunServerMetricsDto, 'runId' | 'offsetsMs'>
    >;
    const counters = stored.counters ?? {};
    return {
      runId: id,
      offsetsMs: run.serverSamples?.offsetsMs ?? [],
      gauges: stored.gauges ?? {},
      counters,
      increases: Object.fromEntries(
        Object.entries(counters).map(([name, values]) => [
          name,
          increaseSoFar(values as Array<number | null>),
        ]),
      ),
      histograms: stored.histograms ?? {},
      diagnostics: run.serverDiagnostics as ServerDiagnosticsDto | null,
    };
  }
}
