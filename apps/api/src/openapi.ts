import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { loadApiEnv } from '@teapot/config';
import { AppModule } from './app.module';

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('teapot')
    .setDescription(
      'Continuous benchmarking of LLM serving endpoints. Every route needs ' +
        '`Authorization: Bearer <API key>` except /health, this document (/openapi.json, /openapi.yaml, /docs) ' +
        "and the dashboard's static files at /; read keys may only GET.",
    )
    .setVersion('0.1.0')
    // Keys are opaque random strings, not JWTs: no bearerFormat.
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: undefined,
        description: 'A teapot API key: TEAPOT_API_KEY, or one made with POST /api-keys.',
      },
      'bearer',
    )
    .addSecurityRequirements('bearer')
    .build();
  return SwaggerModule.createDocument(app, config);
}

/** Swagger UI at /docs and the document at /openapi.json, built from the DTOs that validate. */
export function serveOpenApi(app: INestApplication): void {
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'openapi.json',
    yamlDocumentUrl: 'openapi.yaml',
  });
}

// Only shapes the module graph: preview mode instantiates no provider, so nothing connects.
const PLACEHOLDER_ENV = {
  DATABASE_URL: 'postgresql://openapi@127.0.0.1/unused',
  REDIS_URL: 'redis://127.0.0.1:6379',
  TEAPOT_SECRET_KEY: '0'.repeat(64),
  TEAPOT_API_KEY: 'openapi-document-only-placeholder-key',
};

/** The document the running API serves, built without a database or Redis (for generated clients). */
export async function offlineOpenApiDocument(): Promise<OpenAPIObject> {
  const app = await NestFactory.create(AppModule.forRoot(loadApiEnv(PLACEHOLDER_ENV)), {
    preview: true,
    logger: false,
  });
  try {
    return buildOpenApiDocument(app);
  } finally {
    await app.close();
  }
}
