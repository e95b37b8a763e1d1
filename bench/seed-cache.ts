/**
 * @module bench/seed-cache
 * `--history-seed-dir DIR`: a seeded history kept for the next run, since seeding 10 million rows takes minutes and the
 * scenario writes to its database (so it always gets a copy). SQLite keeps the file, `DIR/history-sqlite-<rows>-v<N>.db`;
 * PostgreSQL a template database `tollgate_seed_history_<rows>_v<N>` on the server, copied with `CREATE DATABASE …
 * TEMPLATE`. Beside either, `DIR/history-<mode>-<rows>-v<N>.json` holds what the seeder returned (the seed's time
 * span, which the queries and the export are cut by). `N` is {@link SEED_VERSION}; a later migration is applied to
 * the copy by the gateway's start, as on any upgraded database.
 */
import { constants, copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchContext } from './context.js';
import type { HistorySeed } from './seed.js';

/** Bumped whenever the seeders write other rows (another shape, spread or count of events): older kept seeds are then not used. */
export const SEED_VERSION = 3;

/** A kept seed's file names and template name for `rows` in this mode. */
function keyOf(ctx: BenchContext, dir: string, rows: number) {
  const base = `history-${ctx.mode}-${rows}-v${SEED_VERSION}`;
  return {
    meta: join(dir, `${base}.json`),
    file: join(dir, `history-sqlite-${rows}-v${SEED_VERSION}.db`),
    template: `tollgate_seed_history_${rows}_v${SEED_VERSION}`,
  };
}

function readSeed(path: string): HistorySeed {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as HistorySeed & { from: string; to: string };
  return { ...raw, from: new Date(raw.from), to: new Date(raw.to) };
}

/**
 * The history of `rows` requests in `db` (a new SQLite path, or the URL of a database `ctx.pg` has just made): copied
 * from the seed kept in `dir` when there is one (`seconds` is then the copy's), else written by `seed` and then kept
 * there. Without `dir`, just `seed()`.
 */
export async function keptHistorySeed(
  ctx: BenchContext,
  dir: string | null,
  db: string,
  rows: number,
  seed: () => Promise<HistorySeed>,
): Promise<HistorySeed & { reused: boolean }> {
  if (!dir) return { ...(await seed()), reused: false };
  mkdirSync(dir, { recursive: true });
  const key = keyOf(ctx, dir, rows);
  const started = performance.now();
  const kept = existsSync(key.meta) && (ctx.pg ? await ctx.pg.exists(key.template) : existsSync(key.file));
  if (kept) {
    if (ctx.pg) await ctx.pg.copyDatabase(key.template, db);
    else copyFileSync(key.file, db, constants.COPYFILE_FICLONE);
    ctx.log(`history: copied the kept seed ${ctx.pg ? key.template : key.file}`);
    return { ...readSeed(key.meta), seconds: (performance.now() - started) / 1000, reused: true };
  }
  const written = await seed();
  // Under a temporary name first: a run stopped mid-copy leaves nothing that looks kept.
  if (ctx.pg) await ctx.pg.copyDatabase(db, key.template);
  else {
    copyFileSync(db, `${key.file}.tmp`, constants.COPYFILE_FICLONE);
    renameSync(`${key.file}.tmp`, key.file);
  }
  writeFileSync(key.meta, `${JSON.stringify(written, null, 2)}\n`);
  ctx.log(`history: kept the seed as ${ctx.pg ? key.template : key.file}`);
  return { ...written, reused: false };
}
