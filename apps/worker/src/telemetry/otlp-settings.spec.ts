import { groupAttributes } from './otlp-instruments';
import { otlpSettingsOf } from './otlp-settings';

const env = (vars: Record<string, string | undefined>) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
  OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: undefined,
  OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: undefined,
  OTEL_EXPORTER_OTLP_TIMEOUT: 10_000,
  WORKER_ID: 'w-1',
  ...vars,
});

describe('otlpSettingsOf', () => {
  it('is off without an endpoint', () => {
    expect(otlpSettingsOf(env({}))).toBeNull();
  });

  it("appends each signal's path to the base URL, and uses a signal's own URL as given", () => {
    expect(otlpSettingsOf(env({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }))).toEqual({
      metricsUrl: 'http://collector:4318/v1/metrics',
      logsUrl: 'http://collector:4318/v1/logs',
      timeoutMs: 10_000,
      instanceId: 'w-1',
    });
    expect(
      otlpSettingsOf(
        env({
          OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
          OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'https://metrics.example.com/otlp',
        }),
      ),
    ).toMatchObject({
      metricsUrl: 'https://metrics.example.com/otlp',
      logsUrl: 'http://collector:4318/v1/logs',
    });
    expect(otlpSettingsOf(env({ OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: 'http://c/logs' }))).toMatchObject({
      metricsUrl: null,
      logsUrl: 'http://c/logs',
    });
  });
});

describe('groupAttributes', () => {
  const group = {
    endpointId: 'e',
    endpoint: 'prod',
    profileId: 'p',
    profile: 'chat-short',
    configVersion: 3,
    model: 'llama-8b',
    apiKind: 'completions' as const,
    baseUrl: 'https://llm.example.com/v1',
    engine: null,
  };

  it('names the operation, and the provider by the engine or else the API spoken', () => {
    expect(groupAttributes(group)).toMatchObject({
      'gen_ai.operation.name': 'text_completion',
      'gen_ai.provider.name': 'openai',
      'server.address': 'llm.example.com',
      'server.port': 443,
      'teapot.config.version': 3,
    });
    expect(groupAttributes({ ...group, engine: 'SGLang' })['gen_ai.provider.name']).toBe('sglang');
  });
});
