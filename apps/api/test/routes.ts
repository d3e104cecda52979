import type {
  OpenAPIObject,
  ParameterObject,
  ReferenceObject,
  SchemaObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import type { RunningApi } from './api';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface Operation {
  method: Method;
  /** OpenAPI template, e.g. /endpoints/{id}. */
  path: string;
  pathParams: string[];
  /** Schemas of the path parameters that declare one (e.g. `{ type: 'integer' }`). */
  pathParamSchemas: Record<string, SchemaObject>;
  query: Array<{ name: string; schema: SchemaObject }>;
  body: SchemaObject | null;
  public: boolean;
}

/** Every operation the served OpenAPI document declares: new routes join the matrices by themselves. */
export async function operationsOf(
  api: RunningApi,
): Promise<{ doc: OpenAPIObject; operations: Operation[] }> {
  const response = await api.http.get('/openapi.json');
  const doc = response.body as OpenAPIObject;
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
      const operation = item[method];
      if (!operation) continue;
      const params = (operation.parameters ?? []) as ParameterObject[];
      const content = (
        operation.requestBody as { content?: Record<string, { schema: SchemaObject }> } | undefined
      )?.content;
      operations.push({
        method,
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        pathParamSchemas: Object.fromEntries(
          params
            .filter((p) => p.in === 'path' && p.schema)
            .map((p) => [p.name, resolve(doc, p.schema ?? {})]),
        ),
        query: params
          .filter((p) => p.in === 'query')
          .map((p) => ({ name: p.name, schema: resolve(doc, p.schema ?? {}) })),
        body: content?.['application/json'] ? resolve(doc, content['application/json'].schema) : null,
        public: Array.isArray(operation.security) && operation.security.length === 0,
      });
    }
  }
  return { doc, operations };
}

export function resolve(doc: OpenAPIObject, schema: SchemaObject | ReferenceObject): SchemaObject {
  if ('$ref' in schema) {
    const name = schema.$ref.split('/').pop() ?? '';
    return resolve(doc, doc.components?.schemas?.[name] ?? {});
  }
  return schema;
}

export function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? name));
}
