/**
 * @module bench/proc
 * What the benchmark reads about processes from /proc: RSS (one read, or sampled for a peak), CPU time (of a process,
 * of its threads, of every PostgreSQL or Redis server process, over phases or between the client's marks), whether a
 * process has gone idle, and the machine's load. Reads only: starting the processes is bench/processes.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { sleep } from './stats.js';

/** Resident set size of `pid` in MB (VmRSS from /proc), or NaN when it is gone. */
export function rssMb(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** CPU time (user + system) `pid` used so far, in clock ticks (1/100 s on Linux). */
export function cpuTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return Number.NaN;
  }
}

/** CPU time in ns that every thread of `pid` spent running so far (`schedstat`: precise where `stat`'s ticks are 10 ms). */
export function cpuNs(pid: number): number {
  let ns = 0;
  try {
    for (const task of readdirSync(`/proc/${pid}/task`))
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    // A thread (or the process) ended between the listing and the read: it adds nothing more.
  }
  return ns;
}

/**
 * CPU time in ns that every process on this machine named each of `commands` (`postgres`, `redis-server`: the name
 * in `/proc/<pid>/stat`) spent running so far, in the order asked; one walk of /proc for all of them.
 */
export function serversCpuNs(commands: readonly string[]): number[] {
  const ns = commands.map(() => 0);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const at = commands.indexOf(stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')));
      if (at >= 0) ns[at]! += cpuNs(Number(entry));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return ns;
}

/**
 * CPU spent in phases that start and stop many times (the decisions of each batch, say): by the gateway `pid` (or
 * several replicas together) and, when asked, by PostgreSQL — where the audit chain's integration runs — by the load
 * client (`clientPid`) and by Redis (`redis`: BullMQ's and the change feed's server): what the capacity model needs to
 * know of a machine that holds them all. Per-process counters: other work on the machine barely moves them (except
 * PostgreSQL's and Redis's, which count every client of those servers).
 */
export function phaseCpu(
  pid: number | readonly number[],
  database: boolean,
  clientPid?: number,
  redis = false,
): {
  start(): void;
  stop(): void;
  msPer(calls: number): { gateway: number; database: number | null; client: number | null; redis: number | null };
} {
  const pids = typeof pid === 'number' ? [pid] : pid;
  const read = (): number[] => {
    const [postgres, redisServer] = database || redis ? serversCpuNs(['postgres', 'redis-server']) : [0, 0];
    return [
      pids.reduce((sum, p) => sum + cpuNs(p), 0),
      database ? postgres! : 0,
      clientPid ? cpuNs(clientPid) : 0,
      redis ? redisServer! : 0,
    ];
  };
  const total = [0, 0, 0, 0];
  let open: number[] | null = null;
  return {
    start() {
      open = read();
    },
    stop() {
      if (!open) return;
      const now = read();
      for (let i = 0; i < 4; i++) total[i]! += now[i]! - open[i]!;
      open = null;
    },
    msPer(calls) {
      const ms = (i: number) => total[i]! / 1e6 / calls;
      return {
        gateway: ms(0),
        database: database ? ms(1) : null,
        client: clientPid ? ms(2) : null,
        redis: redis ? ms(3) : null,
      };
    },
  };
}

/**
 * Waits until `pid` is idle: two consecutive 200 ms windows in which it used at most 2 ticks (≤ 10 % of a core).
 * Used to know that the gateway has taken in every request sent to it. Gives up after `timeoutMs`.
 */
export async function waitIdle(pid: number, timeoutMs = 20_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let quiet = 0;
  let last = cpuTicks(pid);
  while (Date.now() < deadline) {
    await sleep(200);
    const now = cpuTicks(pid);
    quiet = now - last <= 2 ? quiet + 1 : 0;
    last = now;
    if (quiet >= 2) return true;
  }
  return false;
}

/** Samples the RSS of `pid` every `everyMs` until stopped; `peak()` is the highest sample. */
export function rssSampler(pid: number, everyMs = 100): { peak(): number; stop(): number } {
  let peak = rssMb(pid);
  const timer = setInterval(() => {
    const now = rssMb(pid);
    if (now > peak) peak = now;
  }, everyMs);
  return {
    peak: () => peak,
    stop: () => {
      clearInterval(timer);
      return peak;
    },
  };
}

/** One-minute load average and the number of cores, for the report's note on conditions. */
export function machineLoad(): { loadavg1: number; cores: number } {
  const [one] = readFileSync('/proc/loadavg', 'utf8').split(' ');
  return {
    loadavg1: Number(one),
    cores: Number(readFileSync('/proc/cpuinfo', 'utf8').match(/^processor\s*:/gm)?.length ?? 0),
  };
}

/**
 * CPU the server spends per request between the client's `start` and `end` marks: an `ask` handler plus the figure.
 * Unlike throughput, this hardly moves when other processes compete for the cores.
 */
export function cpuMarks(pid: number): { mark(payload: unknown): null; msPer(requests: number): number } {
  const marks: Record<string, number> = {};
  return {
    mark(payload) {
      marks[String(payload)] = cpuTicks(pid);
      return null;
    },
    msPer(requests) {
      const ticks = (marks.end ?? Number.NaN) - (marks.start ?? Number.NaN);
      return (ticks * 10) / requests;
    },
  };
}
