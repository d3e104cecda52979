import type { Logger } from '@nestjs/common';

/**
 * A chore run now and then every `everyMs`, never overlapping itself. A failure is logged (its
 * last line: Prisma's messages open with the call site) and the chore runs again at the next turn.
 */
export class PeriodicChore {
  private timer: NodeJS.Timeout | null = null;
  private busy = false;

  constructor(
    private readonly name: string,
    private readonly everyMs: number,
    private readonly chore: () => Promise<unknown>,
    private readonly logger: Logger,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.runOnce(), this.everyMs);
    void this.runOnce();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async runOnce(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      await this.chore();
    } catch (error) {
      this.logger.warn(`${this.name} failed, retrying in ${this.everyMs} ms: ${lastLine(error)}`);
    } finally {
      this.busy = false;
    }
  }
}

function lastLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (
    text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .pop() ?? text
  );
}
