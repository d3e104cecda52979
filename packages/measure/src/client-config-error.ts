/**
 * The client refused to make a request (a header it cannot send, an address a lookup policy refuses):
 * the run's configuration is at fault, not the endpoint, so such requests count as `client_config`.
 */
export class ClientConfigError extends Error {
  readonly code = 'TEAPOT_CLIENT_CONFIG';

  constructor(message: string) {
    super(message);
    this.name = 'ClientConfigError';
  }
}
