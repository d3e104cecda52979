import { ApiProperty } from '@nestjs/swagger';
import { SERVING_CONFIG_FIELD_NAMES, type SummarisedAttribution } from '@teapot/analysis';

type Attribution = SummarisedAttribution;

/** A serving-configuration field's value: text, a number or a flag, null when unset. */
const CONFIG_VALUE = { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }], nullable: true };

class ConfigChangeDto {
  @ApiProperty({ enum: SERVING_CONFIG_FIELD_NAMES, example: 'weightQuant' }) field!: string;
  @ApiProperty({ ...CONFIG_VALUE, example: 'fp16' }) before!: Attribution['configChanges'][number]['before'];
  @ApiProperty({ ...CONFIG_VALUE, example: 'fp8' }) after!: Attribution['configChanges'][number]['after'];
}

class AttributedDeploymentDto {
  @ApiProperty({ format: 'uuid', description: 'GET /deployments/{id}.' }) id!: string;
  @ApiProperty({ example: 'moved to FP8' }) label!: string;
  @ApiProperty({ type: String, nullable: true, example: '0.10.1' }) version!: string | null;
  @ApiProperty() effectiveAt!: Date;
}

/** What changed around a change point, as `changepoint.detected` carries it. */
export class ChangePointAttributionDto implements Attribution {
  @ApiProperty({
    type: Number,
    nullable: true,
    example: 6,
    description:
      "The serving-configuration version of the run before the change (null: none recorded, or the series' start).",
  })
  configBefore!: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    example: 7,
    description: 'The version of the first run after it.',
  })
  configAfter!: number | null;
  @ApiProperty({ type: [ConfigChangeDto], description: 'The fields that differ between the two versions.' })
  configChanges!: ConfigChangeDto[];
  @ApiProperty({
    type: [AttributedDeploymentDto],
    description:
      "The endpoint's deployments that took effect between the run before the change and the first after it.",
  })
  deployments!: AttributedDeploymentDto[];
  @ApiProperty({ description: 'False when neither the configuration nor a deployment changed there.' })
  explained!: boolean;
  @ApiProperty({
    example: "coincides with config v7 (from v6: weightQuant fp16 -> fp8), deployment 'moved to FP8'",
    description: 'In one line; "no recorded change: unexplained" when `explained` is false.',
  })
  summary!: string;
}
