export { createApp, type CreateAppOptions } from './app';
export { buildOpenApiDocument, offlineOpenApiDocument } from './openapi';
