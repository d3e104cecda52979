import { Readable } from 'node:stream';
import { Injectable } from '@nestjs/common';
import { readRunRequests, streamRunRequests } from '@teapot/db';
import { type RequestRecord, requestMetrics } from '@teapot/measure';
import { PrismaService } from '../prisma/prisma.service';
import type { ExportFormat, RunRequestDto, RunRequestPageDto } from './dto/run-request.dto';

const CSV_HEADER =
  'request_index,warmup,outcome,error_class,http_status,start_us,ttfb_us,output_tokens,token_source,chunk_index,offset_us,tokens,kind\n';
const CHUNK_KIND_NAMES = ['content', 'reasoning', 'tool_call', 'empty'];

/** A run's per-request records: pages of JSON, or an export streamed batch by batch. */
@Injectable()
export class RunRequestsService {
  constructor(private readonly prisma: PrismaService) {}

  async page(runId: string, offset: number, limit: number): Promise<RunRequestPageDto> {
    const records = await readRunRequests(this.prisma, runId, { offset, limit: limit + 1 });
    const items = records.slice(0, limit).map(toRequestJson);
    return { items, nextCursor: records.length > limit ? String(offset + limit) : null };
  }

  /** Never more than one batch of records in memory, and only as fast as the client reads. */
  export(runId: string, format: ExportFormat): Readable {
    const prisma = this.prisma;
    return Readable.from(
      (async function* () {
        if (format === 'csv') yield CSV_HEADER;
        for await (const batch of streamRunRequests(prisma, runId)) {
          for (const record of batch) yield format === 'csv' ? toCsvRows(record) : toNdjsonLine(record);
        }
      })(),
      { objectMode: false },
    );
  }
}

export function toRequestJson(record: RequestRecord): RunRequestDto {
  const metrics = requestMetrics(record);
  return {
    ...rawFields(record),
    metrics: {
      ttftUs: metrics.ttftUs,
      e2eUs: metrics.e2eUs,
      tpotUs: metrics.tpotUs,
      timedTokens: metrics.timedTokens,
      itlUs: Array.from(metrics.itlUs),
      interChunkUs: Array.from(metrics.interChunkUs),
    },
  };
}

/** NDJSON: the raw record only; every metric derives from it (see GET /runs/{id}/requests). */
function toNdjsonLine(record: RequestRecord): string {
  return `${JSON.stringify(rawFields(record))}\n`;
}

function rawFields(record: RequestRecord): Omit<RunRequestDto, 'metrics'> {
  return {
    index: record.index,
    warmup: record.warmup,
    outcome: record.outcome,
    error: record.error ?? null,
    scheduledUs: record.scheduledUs,
    startUs: record.startUs,
    ttfbUs: record.ttfbUs,
    chunkOffsetsUs: Array.from(record.chunkOffsetsUs),
    chunkTokens: Array.from(record.chunkTokens),
    chunkKinds: Array.from(record.chunkKinds),
    tokenSource: record.tokenSource,
    outputTokens: record.outputTokens,
    promptTokens: record.promptTokens,
    targetPromptTokens: record.targetPromptTokens,
    responseId: record.responseId,
    finishReason: record.finishReason,
    sessionId: record.sessionId,
    turnIndex: record.turnIndex,
  };
}

/**
 * CSV: one row per chunk (a request without chunks gets one row with the chunk columns empty).
 * Every text column is an enum value, so nothing needs quoting.
 */
function toCsvRows(record: RequestRecord): string {
  const request = [
    record.index,
    record.warmup,
    record.outcome,
    record.error?.kind ?? '',
    record.error?.status ?? '',
    record.startUs,
    record.ttfbUs ?? '',
    record.outputTokens,
    record.tokenSource,
  ].join(',');
  const chunks = record.chunkOffsetsUs.length;
  if (chunks === 0) return `${request},,,,\n`;
  let rows = '';
  for (let k = 0; k < chunks; k++) {
    rows += `${request},${k},${record.chunkOffsetsUs[k]},${record.chunkTokens[k]},${CHUNK_KIND_NAMES[record.chunkKinds[k]] ?? record.chunkKinds[k]}\n`;
  }
  return rows;
}
