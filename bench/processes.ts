/**
 * @module bench/processes
 * The processes the benchmark starts: the gateway (`tollgate serve` through bin/tollgate.js, exactly as an operator
 * runs it), one-shot `tollgate` commands, and the bare and durable node:http floor servers. What we read about them
 * from /proc (RSS, CPU time) is in bench/proc.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

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
