import { access, readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/** What became of a thread's request for a niceness. */
export type PriorityOutcome = { niceness: number; applied: true } | { niceness: number; applied: false; reason: string };

/**
 * Sets the niceness of the calling thread alone (Linux schedules threads as tasks: setpriority on
 * the thread's id, from /proc/thread-self). Lower is sooner: a media thread at -10 is run before the
 * machine's ordinary work when both are ready. Negative values need CAP_SYS_NICE or RLIMIT_NICE.
 */
export function setThreadNiceness(niceness: number): PriorityOutcome {
  if (process.platform !== 'linux')
    return { niceness, applied: false, reason: `thread priorities are set on Linux only, not ${process.platform}` };
  // Threads inherit the niceness of the thread that starts them: libuv's pool starts at the process's
  // first use of it, so it is made to start now, before this thread's niceness changes.
  access('/', () => undefined);
  try {
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
    setPriority(threadId, niceness);
    return { niceness, applied: true };
  } catch (error) {
    // os.setPriority throws a SystemError: the errno's name (EACCES) is in `info`.
    const failure = error as { info?: { code?: string }; code?: string; message?: string };
    return { niceness, applied: false, reason: failure.info?.code ?? failure.code ?? String(failure.message ?? error) };
  }
}
