export { UsageError, readFlags, type FlagOptions, type FlagValues } from './flags';
export { wholeNumber, numberFrom, positiveNumber, oneOf } from './values';
export { readCommandLine, type CommandLine, type CommandLineIo } from './command-line';
