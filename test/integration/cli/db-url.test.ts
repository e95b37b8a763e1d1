import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const BIN = new URL('../../../bin/tollgate.js', import.meta.url).pathname;

let cwd: string;
beforeEach(() => {
  cwd = mkdtempSync(join(tmpdir(), 'tollgate-dburl-'));
});
afterEach(() => {
  rmSync(cwd, { recursive: true, force: true });
});

/** Runs the CLI in `cwd`; resolves with its exit code and stderr. */
function tollgate(...args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd, env: { ...process.env, TOLLGATE_DB: '', PORT: '0', TOLLGATE_API_TOKENS: 'x' }, timeout: 20_000 },
      (error, _stdout, stderr) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stderr });
      },
    );
  });
}

describe('--db with a URL', () => {
  it.each([
    ['migrate', 'sqlite:./x.db', /"sqlite:" is not a database/],
    ['migrate', 'redis://127.0.0.1:6379/0', /"redis:" is not a database/],
    ['serve', 'mysql://root@127.0.0.1/x', /"mysql:" is not a database/],
  ])('tollgate %s --db %s is a clear error that creates nothing', async (command, url, message) => {
    const { code, stderr } = await tollgate(command, '--db', url);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(message);
    expect(stderr).toContain('SQLite file');
    expect(readdirSync(cwd)).toEqual([]);
  });
});
