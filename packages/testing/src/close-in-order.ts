/** Anything a test opens: an app, a queue or producer, a simulator, a world (close), a Redis or pg client (quit, end). */
export type Closable =
  { close(): Promise<unknown> | void } | { quit(): Promise<unknown> } | { end(): Promise<unknown> };

/**
 * Closes what a test file opened, one after another in the order given (the app before the queues
 * it uses, the world last); what beforeAll never got to open is undefined and skipped.
 */
export async function closeInOrder(...resources: Array<Closable | undefined>): Promise<void> {
  for (const resource of resources) {
    if (resource === undefined) continue;
    if ('close' in resource) await resource.close();
    else if ('quit' in resource) await resource.quit();
    else await resource.end();
  }
}
