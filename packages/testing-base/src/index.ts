export { freePort, freePorts } from './ports';
export { waitFor } from './wait';
export { TcpProxy } from './tcp-proxy';
export { writeHugeBody } from './huge-body';
export { TEST_TOKENIZER, tokenizerDirectory } from './tokenizer-dir';
