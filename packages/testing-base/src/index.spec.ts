import { connect } from 'node:net';
import { freePort, freePorts, waitFor } from './index';

describe('freePorts', () => {
  it('finds different ports that nothing listens on once returned', async () => {
    const ports = await freePorts(3);
    expect(new Set(ports).size).toBe(3);
    const refused = await new Promise<string>((resolve) => {
      const socket = connect(ports[0], '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    });
    expect(refused).toBe('ECONNREFUSED');
    expect(await freePort()).toBeGreaterThan(0);
  });
});

describe('waitFor', () => {
  it('resolves to the first truthy value the probe returns', async () => {
    let calls = 0;
    await expect(waitFor('the third call', () => (++calls >= 3 ? calls : null), 1_000, 1)).resolves.toBe(3);
  });

  it('names what it waited for when it times out', async () => {
    await expect(waitFor('nothing', () => false, 50, 10)).rejects.toThrow(
      'timed out after 50 ms waiting for nothing',
    );
  });
});
