export * from './types';
export { runBenchmark } from './run';
export { runBenchmarkInThread } from './in-thread';
export { MEASURING_PROCESS_FLAGS } from './speed/process-flags';
export { MEASURE_VERSION } from './version';
export { summarize, requestMetrics, meetsSlo } from './metrics';
export { clientDiagnostics, LONG_GAP_FACTOR, type ClientDiagnosticsOptions } from './diagnostics';
export { percentile } from '@teapot/run-definitions';
export { percentileSummary } from './stats';
export { mulberry32, deriveSeed, standardNormal, type Random } from './random';
export { SseParser, parseSse, SseLineTooLongError, type SseEvent, type SseListener } from './sse';
export { arrivalSchedule, type ArrivalProcess, type ArrivalScheduleOptions } from './arrivals';
export {
  countWords,
  parseJsonlPrompts,
  syntheticPrompts,
  type DatasetPrompt,
  type PromptSpec,
  type SyntheticPromptOptions,
} from './workload';
export {
  DATASET_LIMITS,
  DatasetError,
  loadDataset,
  parseConversations,
  selectConversations,
} from './datasets';
export { assetOf, measuredWorkload } from './profile-workload';
export { runOpenLoop, traceRatePerS, type OpenLoopHost, type OpenSchedule } from './open-loop';
export { checkTraceSpeed, loadTrace, parseTrace, TRACE_LIMITS, TraceError } from './trace';
export { turnSummary } from './workload-report';
export { SATURATION } from './client-health';
export { ClientConfigError } from './client-config-error';
export { invalidRequestHeader } from './request-headers';
export {
  MAX_TOKENIZER_BYTES,
  readTokenizerFile,
  TokenizerFileError,
  type TokenizerIdentity,
  type TokenizerSource,
} from '@teapot/tokenizer';
