import { readFileSync } from 'node:fs';

/**
 * CPU time (user + system, us) the calling thread has used so far: the client's own, without a
 * simulator or an application sharing the process. Linux keeps it per thread in nanoseconds
 * (/proc/thread-self/schedstat, read synchronously so that this thread makes the read); elsewhere
 * the whole process's CPU stands in.
 */
export function currentThreadCpuUs(): number {
  if (process.platform === 'linux') {
    try {
      const runNs = Number(readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ', 1)[0]);
      if (Number.isFinite(runNs)) return runNs / 1000;
    } catch {
      // a kernel without schedstat: fall through to the process's figure
    }
  }
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}
