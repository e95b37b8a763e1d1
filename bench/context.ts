/**
 * @module bench/context
 * What every scenario's orchestrator part gets: the mode (embedded SQLite + in-process scheduler, or BullMQ on
 * Redis), a temp directory, the load client, and a way to start a fresh gateway in that mode.
 */
import { join } from 'node:path';
import type { LoadClient } from './client-link.js';
import type { BenchPostgres } from './postgres.js';
import { startGateway, type ServerProcess } from './processes.js';

/**
 * The shapes the figures are measured on: embedded SQLite with the in-process scheduler, SQLite with BullMQ, and
 * PostgreSQL with BullMQ (the production shape for replicas).
 */
export type BenchMode = 'sqlite' | 'bullmq' | 'postgres';

/** Shared by every scenario of one mode. */
export interface BenchContext {
  mode: BenchMode;
  /** A private temp directory (removed at the end). */
  tmp: string;
  client: LoadClient;
  /** The PostgreSQL server in `postgres` mode (null otherwise): fresh databases, counts. */
  pg: BenchPostgres | null;
  /** Extra environment for gateways in this mode (REDIS_URL, TOLLGATE_QUEUE_PREFIX). */
  gatewayEnv: Record<string, string>;
  /** Where to write `--cpu-prof` profiles of the gateways, when profiling was asked for. */
  profileDir: string | null;
  /** Smaller counts, for checking the harness itself. */
  quick: boolean;
  /** Requests the history scenarios seed (`--history-rows`, default 10 million). */
  historyRows: number;
  /** Where seeded histories are kept for the next run (`--history-seed-dir`; bench/seed-cache.ts), or null. */
  historySeedDir: string | null;
  /** The baseline revision built for this run (`--baseline REV`), or null. */
  baseline: { rev: string; commit: string; main: string } | null;
  /** This checkout's plain-JavaScript build (its `src/cli/main.js`), or null when none was made (`--source`). */
  build: string | null;
  /** Figures measured earlier in this run (e.g. create_rps, to size the expiry scenario). */
  earlier: Record<string, unknown>;
  log(line: string): void;
}

/** Where a fresh gateway `name` keeps its data: a new PostgreSQL database in `postgres` mode, else `<tmp>/<name>.db`. */
export function freshDatabase(ctx: BenchContext, name: string): Promise<string> {
  return ctx.pg ? ctx.pg.fresh(name) : Promise.resolve(join(ctx.tmp, `${name}.db`));
}

/** Starts a gateway on a fresh database in this context's mode. */
export async function freshGateway(
  ctx: BenchContext,
  name: string,
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  return startGateway({
    dbPath: await freshDatabase(ctx, name),
    env: { ...ctx.gatewayEnv, ...env },
    cpuProfDir: ctx.profileDir ? join(ctx.profileDir, `${ctx.mode}-${name}`) : undefined,
  });
}

/**
 * Runs `fn` on a fresh gateway configured (`env`) to talk to `fake`, a platform fake already started; stops both after,
 * and closes the fake when the gateway fails to start.
 */
export async function withGatewayBeside<T>(
  ctx: BenchContext,
  name: string,
  fake: { close(): Promise<void> },
  env: Record<string, string>,
  fn: (gateway: ServerProcess) => Promise<T>,
): Promise<T> {
  const gateway = await freshGateway(ctx, name, env).catch(async (error: unknown) => {
    await fake.close();
    throw error;
  });
  try {
    return await fn(gateway);
  } finally {
    await gateway.stop();
    await fake.close();
  }
}

/** A scenario: its orchestrator part returns figures to merge into results.json under the mode's root. */
export interface Scenario {
  name: string;
  /** Whether it makes sense in `mode` (the floor is measured once). */
  modes: BenchMode[];
  run(ctx: BenchContext): Promise<Record<string, unknown>>;
}
