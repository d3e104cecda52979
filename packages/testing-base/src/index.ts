export { freePort, freePorts } from './ports';
export { waitFor } from './wait';
