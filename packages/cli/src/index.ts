export { runCli, EXIT, type CliIo } from './cli';
