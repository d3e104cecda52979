import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** An OTLP attribute value in the JSON encoding, read as a plain value. */
type OtlpValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  kvlistValue?: { values?: OtlpKeyValue[] };
  arrayValue?: { values?: OtlpValue[] };
};
type OtlpKeyValue = { key: string; value: OtlpValue };

export type Plain = string | number | boolean | null | Plain[] | { [key: string]: Plain };

function plain(value: OtlpValue | undefined): Plain {
  if (!value) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.kvlistValue) return attributes(value.kvlistValue.values);
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plain);
  return null;
}

function attributes(list: OtlpKeyValue[] | undefined): Record<string, Plain> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, plain(value)]));
}

/** A data point as received: its attributes and value (histograms: count, sum, min, max, bounds, counts). */
export interface ReceivedPoint {
  attributes: Record<string, Plain>;
  value?: number;
  count?: number;
  sum?: number;
  min?: number;
  max?: number;
  bounds?: number[];
  bucketCounts?: number[];
}

export interface ReceivedMetric {
  name: string;
  unit: string;
  kind: 'histogram' | 'gauge' | 'sum';
  points: ReceivedPoint[];
}

export interface ReceivedLog {
  eventName?: string;
  severityNumber?: number;
  attributes: Record<string, Plain>;
  body: Plain;
  resource: Record<string, Plain>;
}

type JsonPoint = {
  attributes?: OtlpKeyValue[];
  asDouble?: number;
  asInt?: string | number;
  count?: string | number;
  sum?: number;
  min?: number;
  max?: number;
  explicitBounds?: number[];
  bucketCounts?: Array<string | number>;
};
type JsonMetric = {
  name: string;
  unit?: string;
  histogram?: { dataPoints: JsonPoint[] };
  gauge?: { dataPoints: JsonPoint[] };
  sum?: { dataPoints: JsonPoint[] };
};

function point(p: JsonPoint): ReceivedPoint {
  const number = (v: string | number | undefined) => (v === undefined ? undefined : Number(v));
  return {
    attributes: attributes(p.attributes),
    value: p.asDouble ?? number(p.asInt),
    count: number(p.count),
    sum: p.sum,
    min: p.min,
    max: p.max,
    bounds: p.explicitBounds,
    bucketCounts: p.bucketCounts?.map(Number),
  };
}

/**
 * A local OTLP/HTTP receiver for the JSON encoding: decodes every export to /v1/metrics and /v1/logs.
 * `hang` makes it accept requests and never answer them (a collector that hangs).
 */
export class OtlpReceiver {
  /** Every metric export, in arrival order, decoded. */
  readonly metricExports: ReceivedMetric[][] = [];
  readonly logs: ReceivedLog[] = [];
  /** Requests received and not answered (hang mode). */
  pending = 0;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(mode: 'answer' | 'hang' = 'answer'): Promise<OtlpReceiver> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const receiver = new OtlpReceiver(server, `http://127.0.0.1:${port}`);
    server.on('request', (request: IncomingMessage, response: ServerResponse) =>
      receiver.handle(request, response, mode),
    );
    server.on('connection', (socket: Socket) => {
      receiver.sockets.add(socket);
      socket.once('close', () => receiver.sockets.delete(socket));
    });
    return receiver;
  }

  /** The metric as the latest export that carries it has it (cumulative: the latest is the total). */
  latest(name: string): ReceivedMetric | undefined {
    for (let i = this.metricExports.length - 1; i >= 0; i -= 1) {
      const found = this.metricExports[i].find((metric) => metric.name === name);
      if (found) return found;
    }
    return undefined;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(request: IncomingMessage, response: ServerResponse, mode: 'answer' | 'hang'): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (mode === 'hang') {
        this.pending += 1;
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      if (request.url === '/v1/metrics') this.metricExports.push(this.decodeMetrics(body));
      else if (request.url === '/v1/logs') this.logs.push(...this.decodeLogs(body));
      else {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  }

  private decodeMetrics(body: Record<string, unknown>): ReceivedMetric[] {
    const resources = (body.resourceMetrics ?? []) as Array<{
      scopeMetrics?: Array<{ metrics?: JsonMetric[] }>;
    }>;
    return resources.flatMap((resource) =>
      (resource.scopeMetrics ?? []).flatMap((scope) =>
        (scope.metrics ?? []).map((metric): ReceivedMetric => {
          const kind = metric.histogram ? 'histogram' : metric.gauge ? 'gauge' : 'sum';
          const data = metric.histogram ?? metric.gauge ?? metric.sum;
          return {
            name: metric.name,
            unit: metric.unit ?? '',
            kind,
            points: (data?.dataPoints ?? []).map(point),
          };
        }),
      ),
    );
  }

  private decodeLogs(body: Record<string, unknown>): ReceivedLog[] {
    type JsonLog = {
      eventName?: string;
      severityNumber?: number;
      attributes?: OtlpKeyValue[];
      body?: OtlpValue;
    };
    const resources = (body.resourceLogs ?? []) as Array<{
      resource?: { attributes?: OtlpKeyValue[] };
      scopeLogs?: Array<{ logRecords?: JsonLog[] }>;
    }>;
    return resources.flatMap((resource) =>
      (resource.scopeLogs ?? []).flatMap((scope) =>
        (scope.logRecords ?? []).map((log) => ({
          eventName: log.eventName,
          severityNumber: log.severityNumber,
          attributes: attributes(log.attributes),
          body: plain(log.body),
          resource: attributes(resource.resource?.attributes),
        })),
      ),
    );
  }
}
