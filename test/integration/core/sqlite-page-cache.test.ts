/**
 * The SQLite page cache a gateway keeps (`TOLLGATE_SQLITE_CACHE_MB`): 64 MB unless set, the size given when set, and a
 * start-up refused, naming the variable, for a size that is not one. Real SQLite files.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStores, type OpenStores } from '../../../src/stores/open-store.js';

let dir: string;
const opened: OpenStores[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tollgate-cache-'));
});
afterEach(async () => {
  for (const stores of opened.splice(0)) await stores.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The main connection's `cache_size` (negative: KiB) of stores opened with `env`. */
async function cacheSize(env: Record<string, string>): Promise<number> {
  const stores = await openStores(join(dir, 'tollgate.db'), { env });
  opened.push(stores);
  return stores.sqlite!.pragma('cache_size', { simple: true }) as number;
}

describe('the SQLite page cache', () => {
  it('is 64 MB unless TOLLGATE_SQLITE_CACHE_MB says otherwise', async () => {
    expect(await cacheSize({})).toBe(-64 * 1024);
  });

  it('is the size TOLLGATE_SQLITE_CACHE_MB gives, in MB', async () => {
    expect(await cacheSize({ TOLLGATE_SQLITE_CACHE_MB: '16' })).toBe(-16 * 1024);
  });

  it('refuses a size that is not whole megabytes from 1, naming the variable', async () => {
    for (const bad of ['0', '-4', '1.5', 'lots'])
      await expect(cacheSize({ TOLLGATE_SQLITE_CACHE_MB: bad })).rejects.toThrow(/TOLLGATE_SQLITE_CACHE_MB/);
  });
});
