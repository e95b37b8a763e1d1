/**
 * @module bench/micro/export
 * `tsx bench/micro/export.ts [--mode sqlite|postgres] [--rows 200000] [--formats ndjson,csv] [--only store,api,cli]`:
 * what an export of every seeded row costs, three ways: in this process (`exportPages` into `writeExport` and a sink
 * that drops the bytes), through `GET /v1/requests/export` of a gateway (the plain-JavaScript build, see
 * `built-gateway.ts`) read by this process, and through `tollgate audit export` into a pipe. Prints rows per
 * CPU-second (the exporting process's CPU: on a shared machine the figure that does not move with the load), rows per
 * wall second, the RSS growth (gateway: peak minus idle; CLI: peak minus a one-row export's) and an md5 of the bytes
 * (the same before and after a change that must keep them). The seed is kept (`$TMPDIR/tollgate-micro-export-<rows>.db`,
 * database `tollgate_micro_export_<rows>`) and reused by later runs. Not part of `npm run bench`.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import { buildGateway } from '../built-gateway.js';
import { BENCH_TOKEN, startGateway, useBuiltGateway } from '../processes.js';
import { cpuNs, machineLoad, rssMb, rssSampler } from '../proc.js';
import { seedHistory } from '../seed.js';
import { seedHistoryPostgres } from '../seed-postgres.js';
import { round } from '../stats.js';
import { writeExport } from '../../src/http/export.js';
import { openStores } from '../../src/stores/open-store.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 && args[at + 1] ? args[at + 1]! : fallback;
};
const mode = option('mode', 'sqlite');
const rows = Number(option('rows', '200000'));
const formats = option('formats', 'ndjson,csv').split(',') as ('csv' | 'ndjson')[];
const only = option('only', 'store,api,cli').split(',');

/** The kept seed: a SQLite file, or a database on the bench's PostgreSQL; seeded when missing. */
async function seeded(): Promise<string> {
  if (mode === 'sqlite') {
    const file = join(tmpdir(), `tollgate-micro-export-${rows}.db`);
    if (existsSync(file)) return file;
    // Seeded under another name and renamed when whole, so an interrupted seed is never taken for a kept one.
    const part = `${file}.part`;
    for (const f of [part, `${part}-wal`, `${part}-shm`]) rmSync(f, { force: true });
    const seed = seedHistory(part, { rows });
    console.log(`seeded ${rows} rows into ${file} in ${round(seed.seconds, 1)} s`);
    renameSync(part, file);
    return file;
  }
  const base = new URL(process.env.TOLLGATE_BENCH_PG || 'postgres://postgres@127.0.0.1:5432/postgres');
  const name = `tollgate_micro_export_${rows}`;
  const url = Object.assign(new URL(base.href), { pathname: `/${name}` }).href;
  const admin = new pg.Client({ connectionString: base.href });
  await admin.connect();
  try {
    // The database's comment is set only once the seed is whole.
    const { rows: found } = await admin.query<{ done: string | null }>(
      "SELECT shobj_description(oid, 'pg_database') AS done FROM pg_database WHERE datname = $1",
      [name],
    );
    if (found[0]?.done === 'seeded') return url;
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
    const seed = await seedHistoryPostgres(url, { rows });
    await admin.query(`COMMENT ON DATABASE "${name}" IS 'seeded'`);
    console.log(`seeded ${rows} rows into ${name} in ${round(seed.seconds, 1)} s`);
    return url;
  } finally {
    await admin.end();
  }
}

/** What one export cost and wrote. */
interface Figures {
  lines: number;
  md5: string;
  cpuS: number;
  wallS: number;
  rssGrowthMb: number | null;
}

function report(how: string, format: string, f: Figures): void {
  const perCpu = Math.round(f.lines / f.cpuS).toLocaleString('en-US');
  const perWall = Math.round(f.lines / f.wallS).toLocaleString('en-US');
  const rss = f.rssGrowthMb === null ? '' : `, RSS +${round(f.rssGrowthMb, 1)} MB`;
  console.log(
    `${how.padEnd(5)} ${format.padEnd(6)} ${f.lines} lines: ${perCpu} rows/CPU-s (${round(f.cpuS, 2)} s), ${perWall} rows/s wall${rss}, md5 ${f.md5}`,
  );
}

/** Counts lines and hashes the bytes, keeping none of them. */
function counter(): { lines: number; md5(): string; take(chunk: Buffer): void } {
  const hash = createHash('md5');
  const state = {
    lines: 0,
    md5: () => hash.digest('hex'),
    take(chunk: Buffer) {
      hash.update(chunk);
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) state.lines++;
    },
  };
  return state;
}

async function inProcess(db: string, format: 'csv' | 'ndjson'): Promise<Figures> {
  const stores = await openStores(db, { env: {}, migrate: false });
  try {
    const count = counter();
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        count.take(chunk);
        done();
      },
    });
    const rss = rssSampler(process.pid, 20);
    const before = rssMb(process.pid);
    // What the resident memory is made of at its peak: the V8 heap, or memory outside it (sockets' buffers).
    let peak = process.memoryUsage();
    const sampler = setInterval(() => {
      const now = process.memoryUsage();
      if (now.rss > peak.rss) peak = now;
    }, 20);
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    await writeExport(sink, stores.store.exportPages({}, format), format);
    const used = process.cpuUsage(cpu);
    clearInterval(sampler);
    const mb = (n: number) => Math.round(n / 1048576);
    console.log(
      `      at the peak: rss ${mb(peak.rss)} MB, heap ${mb(peak.heapUsed)} used / ${mb(peak.heapTotal)} MB, external ${mb(peak.external)} MB, array buffers ${mb(peak.arrayBuffers)} MB`,
    );
    return {
      lines: count.lines,
      md5: count.md5(),
      cpuS: (used.user + used.system) / 1e6,
      wallS: (performance.now() - t0) / 1000,
      rssGrowthMb: rss.stop() - before,
    };
  } finally {
    await stores.close();
  }
}

async function throughApi(url: string, pid: number, format: 'csv' | 'ndjson'): Promise<Figures> {
  const before = rssMb(pid);
  const rss = rssSampler(pid, 20);
  const cpu0 = cpuNs(pid);
  const t0 = performance.now();
  const res = await fetch(`${url}/v1/requests/export?format=${format}`, {
    headers: { authorization: `Bearer ${BENCH_TOKEN}` },
  });
  const count = counter();
  for await (const chunk of res.body ?? []) count.take(Buffer.from(chunk));
  const wallS = (performance.now() - t0) / 1000;
  const cpuS = (cpuNs(pid) - cpu0) / 1e9;
  return { lines: count.lines, md5: count.md5(), cpuS, wallS, rssGrowthMb: rss.stop() - before };
}

/** `tollgate audit export` under `/usr/bin/time`: its CPU and peak RSS as the kernel counted them. */
async function throughCli(
  main: string,
  db: string,
  format: string,
  extra: string[] = [],
): Promise<Figures & { peakMb: number }> {
  const child = spawn(
    '/usr/bin/time',
    ['-f', 'TIME %U %S %M', process.execPath, main, 'audit', 'export', '--db', db, '--format', format, ...extra],
    {
      env: { ...process.env, TOLLGATE_CLI: '1', TOLLGATE_DB: '', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const count = counter();
  child.stdout.on('data', (d: Buffer) => count.take(d));
  const t0 = performance.now();
  const [code] = (await once(child, 'exit')) as [number | null];
  const wallS = (performance.now() - t0) / 1000;
  const time = /TIME (\S+) (\S+) (\d+)/.exec(stderr);
  if (code !== 0 || !time) throw new Error(`tollgate audit export exited ${code}:\n${stderr}`);
  return {
    lines: count.lines,
    md5: count.md5(),
    cpuS: Number(time[1]) + Number(time[2]),
    wallS,
    rssGrowthMb: null,
    peakMb: Number(time[3]) / 1024,
  };
}

const db = await seeded();
console.log(`export of ${rows} rows, ${mode}, node ${process.version}, load ${machineLoad().loadavg1}`);
if (only.includes('store')) for (const format of formats) report('store', format, await inProcess(db, format));
if (only.includes('api') || only.includes('cli')) {
  const main = await buildGateway();
  useBuiltGateway(main);
  if (only.includes('api')) {
    const gateway = await startGateway({ dbPath: db });
    try {
      for (const format of formats) report('api', format, await throughApi(gateway.url, gateway.pid, format));
    } finally {
      await gateway.stop();
    }
  }
  if (only.includes('cli')) {
    // A one-row export (an agent no row has) is the CLI's start-up RSS, which the growth is measured from.
    const idle = await throughCli(main, db, 'ndjson', ['--agent', 'nobody']);
    for (const format of formats) {
      const full = await throughCli(main, db, format);
      report('cli', format, { ...full, rssGrowthMb: full.peakMb - idle.peakMb });
    }
  }
}
console.log(`load ${machineLoad().loadavg1}`);
