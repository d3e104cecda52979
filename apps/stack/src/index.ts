export { runStack, type StackIo, type StackResult } from './stack';
export { parseStackArgs, DEFAULT_STACK_OPTIONS, USAGE, type StackOptions } from './args';
export { resolveStackEnv, DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL, type StackEnv } from './dev-env';
export { FIGURES, type Figures, type EndpointRow } from './report';
