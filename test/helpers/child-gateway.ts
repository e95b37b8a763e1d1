/**
 * `tollgate serve` as a child process, for restart and multi-process tests: the CLI compiled from the sources
 * ({@link compiledCli}: the same code as bin/tollgate.js runs through tsx, at less than half the start-up CPU) on
 * port 0; the bound URL is read from its first stdout line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { compiledCli } from './compiled-cli.js';

/** A running child gateway. */
export interface ChildGateway {
  url: string;
  token: string;
  process: ChildProcess;
  /** Everything it printed so far (stdout + stderr). */
  output(): string;
  api(path: string, init?: { method?: string; body?: unknown }): Promise<Response>;
  /** Sends `signal` and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Every child started here: killed when the test worker exits, so a set-up that timed out leaves no gateway behind. */
const started = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of started) child.kill('SIGKILL');
});

/** Starts `tollgate serve --port 0 --db <dbPath>` with `env` added to the environment. */
export async function startChildGateway(
  dbPath: string,
  env: Record<string, string> = {},
  args: string[] = [],
): Promise<ChildGateway> {
  const token = 'child-token';
  const child = spawn(process.execPath, [await compiledCli(), 'serve', '--port', '0', '--db', dbPath, ...args], {
    env: { ...process.env, TOLLGATE_CLI: '1', TOLLGATE_API_TOKENS: token, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.add(child);
  child.once('exit', () => started.delete(child));
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start in 60 s:\n${output}`)), 60_000);
    const onData = () => {
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        child.stdout.off('data', onData);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code} before listening:\n${output}`));
    });
  });
  return {
    url,
    token,
    process: child,
    output: () => output,
    api(path, init = {}) {
      return fetch(`${url}${path}`, {
        method: init.method ?? (init.body !== undefined ? 'POST' : 'GET'),
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
    },
    async kill(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = once(child, 'exit');
      child.kill(signal);
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}
