/**
 * @module bench/processes
 * The processes the benchmark starts: the gateway (`tollgate serve` through bin/tollgate.js, exactly as an operator
 * runs it), the bare node:http floor server, and what we read about them from /proc (RSS, CPU time).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sleep } from './stats.js';

const BIN = fileURLToPath(new URL('../bin/tollgate.js', import.meta.url));
/** How a gateway is started: the script node runs and the environment it needs. */
export interface GatewayEntry {
  script: string;
  env: Record<string, string>;
}

/** The gateway entry: bin/tollgate.js, or a plain-JavaScript build (see `built-gateway.ts`). */
let gatewayEntry: GatewayEntry = { script: BIN, env: {} };

/** The entry of the JavaScript build at `mainJs` (its `src/cli/main.js`). */
export function builtEntry(mainJs: string): GatewayEntry {
  return { script: mainJs, env: { TOLLGATE_CLI: '1' } };
}

/** Runs gateways from the JavaScript build at `mainJs` (its `src/cli/main.js`) from now on. */
export function useBuiltGateway(mainJs: string): void {
  gatewayEntry = builtEntry(mainJs);
}
const FLOOR = fileURLToPath(new URL('./floor-server.ts', import.meta.url));
const DURABLE_FLOOR = fileURLToPath(new URL('./durable-floor-server.ts', import.meta.url));
/** The bearer token every benchmark gateway accepts. */
export const BENCH_TOKEN = 'bench-token';

/** A child server the load client talks to. */
export interface ServerProcess {
  url: string;
  pid: number;
  child: ChildProcess;
  /** The last 64 KB it printed. */
  output(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with how it ended. */
  stop(graceMs?: number): Promise<string>;
}

/** Options of {@link startGateway}. */
export interface GatewayStart {
  /** A SQLite file, or a postgres:// URL. */
  dbPath: string;
  env?: Record<string, string>;
  /** Directory for a `--cpu-prof` profile of the gateway's main thread (written at exit). */
  cpuProfDir?: string;
  /** How long to wait for the "listening" line. */
  startTimeoutMs?: number;
  /** Another gateway than the run's (`--baseline`: the baseline revision's build). */
  entry?: GatewayEntry;
}

/** Starts `tollgate serve --port 0 --db <dbPath>` and waits for its "listening on" line. */
export function startGateway(options: GatewayStart): Promise<ServerProcess> {
  const nodeArgs = options.cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', options.cpuProfDir] : [];
  const entry = options.entry ?? gatewayEntry;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TOLLGATE_API_TOKENS: BENCH_TOKEN,
    LOG_LEVEL: 'warn',
    TOLLGATE_RATE_LIMIT: '0',
    TOLLGATE_RATE_LIMIT_DECISIONS: '0',
    TOLLGATE_MAX_CONNECTIONS: '65536',
    TOLLGATE_MAX_CONNECTIONS_PER_ADDRESS: '65536',
    ...entry.env,
    ...options.env,
  };
  if (!options.env?.REDIS_URL) delete env.REDIS_URL;
  const child = spawn(
    process.execPath,
    [...nodeArgs, entry.script, 'serve', '--port', '0', '--host', '127.0.0.1', '--db', options.dbPath],
    {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return waitForListening(child, /listening on (http:\/\/\S+)/, options.startTimeoutMs ?? 60_000);
}

/** Runs a one-shot `tollgate <args>` (e.g. `migrate --from … --to …`) the same way the gateway runs; rejects on a non-zero exit. */
export async function runTollgate(args: string[], env: Record<string, string> = {}): Promise<string> {
  const child = spawn(process.execPath, [gatewayEntry.script, ...args], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...gatewayEntry.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`tollgate ${args[0]} exited ${code}:\n${output.slice(-4000)}`);
  return output;
}

/** Starts the bare node:http server that gives the floor figures. */
export async function startFloorServer(): Promise<ServerProcess> {
  const child = spawn(process.execPath, [await plainFloor()], { stdio: ['ignore', 'pipe', 'pipe'] });
  return waitForListening(child, /floor listening on (http:\/\/\S+)/, 30_000);
}

/** Starts the node:http server that commits one row per create (the durable floor) on `db`: a SQLite file or a postgres:// URL. */
export function startDurableFloorServer(db: string): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', DURABLE_FLOOR, '--db', db], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return waitForListening(child, /floor listening on (http:\/\/\S+)/, 60_000);
}

let floorJs: string | null = null;

/**
 * The floor server as plain JavaScript (an esbuild transform into a temp file), run by bare node: under tsx its
 * process would carry the loader (a hooks thread, esbuild) and its RSS would not be node's own.
 */
async function plainFloor(): Promise<string> {
  if (floorJs) return floorJs;
  const { transform } = await import('esbuild');
  const { code } = await transform(readFileSync(FLOOR, 'utf8'), { loader: 'ts', format: 'esm', target: 'node20' });
  const file = join(mkdtempSync(join(tmpdir(), 'tollgate-floor-')), 'floor-server.mjs');
  writeFileSync(file, code);
  return (floorJs = file);
}

function waitForListening(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<ServerProcess> {
  let output = '';
  // Always drain both pipes: a child blocked on a full pipe would look like a slow gateway.
  const keep = (d: Buffer) => {
    output += d.toString();
    if (output.length > 65_536) output = output.slice(-65_536);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = once(child, 'exit');
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start in ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = () => {
      const url = pattern.exec(output)?.[1];
      if (!url) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      resolve({
        url,
        pid: child.pid!,
        child,
        output: () => output,
        async stop(graceMs = 10_000) {
          if (child.exitCode !== null || child.signalCode !== null)
            return `exited ${child.exitCode ?? child.signalCode}`;
          child.kill('SIGTERM');
          const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
          const [code, signal] = (await exited) as [number | null, string | null];
          clearTimeout(killer);
          return signal ? `signal ${signal}` : `exit ${code}`;
        },
      });
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code ?? signal}) before listening:\n${output}`));
    });
  });
}

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
