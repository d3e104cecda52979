import { SERVING_CONFIG_FIELD_NAMES, type ConfigValue, type ServingConfigField } from '@teapot/db';
import { sideRoofline, type RooflineRun } from './roofline';

const config = (fields: Partial<Record<ServingConfigField, ConfigValue>>) =>
  ({
    ...Object.fromEntries(SERVING_CONFIG_FIELD_NAMES.map((f) => [f, null])),
    ...fields,
  }) as Record<ServingConfigField, ConfigValue>;
const run = (model: string, fields: Partial<Record<ServingConfigField, ConfigValue>>, extra: unknown = {}) =>
  ({ model, config: config(fields), extra }) as RooflineRun;

describe('sideRoofline', () => {
  it('divides weight bytes by bandwidth and tensor parallelism, taking the parameters the config declares', () => {
    const floor = sideRoofline(
      [run('meta-llama/Llama-3.3-70B-Instruct', { gpuModel: 'H200', weightQuant: 'fp8', tensorParallel: 2 })],
      10,
    );
    expect(floor.floorMs).toBeCloseTo((70.6e9 / 2 / 4.8e12) * 1000, 12);
    expect(floor.achievedFraction).toBeCloseTo(floor.floorMs! / 10, 12);
    // A model the catalogue does not know, with its parameter count declared; 4 GPUs, 2 pipeline stages: tp 2.
    const declared = sideRoofline(
      [
        run(
          'acme/custom-13b',
          { gpuModel: 'NVIDIA L4', weightQuant: 'int4-awq', gpuCount: 4, pipelineParallel: 2 },
          { modelParams: 13e9 },
        ),
      ],
      null,
    );
    expect(declared).toMatchObject({
      paramsFrom: 'config',
      modelParams: 13e9,
      tensorParallel: 2,
      bytesPerWeight: 0.5,
    });
    expect(declared.floorMs).toBeCloseTo(((13e9 * 0.5) / 2 / 0.3e12) * 1000, 12);
    expect(declared.achievedFraction).toBeNull();
  });

  it('says why there is no floor', () => {
    const reason = (runs: RooflineRun[]) => sideRoofline(runs, 5).reason;
    expect(reason([run('llama-8b', { weightQuant: 'fp8' })])).toMatch(/names no gpuModel/);
    expect(reason([run('llama-8b', { gpuModel: 'H100', weightQuant: 'fp8' })])).toMatch(
      /"H100" is not in the hardware catalogue/,
    );
    expect(reason([run('llama-8b', { gpuModel: 'h100-sxm', weightQuant: 'gptq' })])).toMatch(
      /bytes per weight/,
    );
    expect(reason([run('acme/custom-13b', { gpuModel: 'h100-sxm', weightQuant: 'fp8' })])).toMatch(
      /extra.modelParams/,
    );
    expect(
      reason([
        run('llama-8b', { gpuModel: 'h100-sxm', weightQuant: 'fp8' }),
        run('llama-8b', { gpuModel: 'h100-sxm', weightQuant: 'fp16' }),
      ]),
    ).toMatch(/2 different floors/);
  });
});
