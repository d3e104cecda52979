export { createApp, type CreateAppOptions } from './app';
export { buildOpenApiDocument } from './openapi';
