import { Injectable } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** The route label of requests no route answered: the dashboard's static files and unknown paths. */
export const NO_ROUTE = '(none)';

/**
 * The API process's Prometheus registry: prom-client's process metrics and the request duration
 * histogram. One registry per app, so several apps in one test process never share a series.
 */
@Injectable()
export class ApiMetrics {
  readonly registry = new Registry();
  private readonly requestSeconds = new Histogram({
    name: 'teapot_http_request_duration_seconds',
    help: `API requests by method, route template (${NO_ROUTE}: static files and unknown paths) and status code.`,
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** Express middleware timing every request until its response is sent. */
  readonly recordRequests = (request: Request, response: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    response.once('finish', () => {
      // The template (`/runs/:id`), never the path itself: one series per route, not per id.
      const route = (request.route as { path?: unknown } | undefined)?.path;
      this.requestSeconds.observe(
        {
          method: request.method,
          route: typeof route === 'string' ? route : NO_ROUTE,
          status_code: String(response.statusCode),
        },
        Number(process.hrtime.bigint() - started) / 1e9,
      );
    });
    next();
  };
}
