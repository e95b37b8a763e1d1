/**
 * `tollgate audit` against a database file that does not exist creates nothing and says where it looked (run from
 * another folder, it used to create ./data/tollgate.db and fail with "no such table").
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const BIN = new URL('../../../bin/tollgate.js', import.meta.url).pathname;

const tollgate = (cwd: string, args: string[], env: Record<string, string> = {}) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd, env: { ...process.env, TOLLGATE_DB: '', ...env }, timeout: 20_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });

describe('tollgate audit without a database', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-audit-missing-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('run from a folder without ./data/tollgate.db: creates nothing and names the absolute path it looked at', async () => {
    const result = await tollgate(dir, ['audit']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`no database at ${join(dir, 'data', 'tollgate.db')}`);
    expect(result.stderr).toContain('--db');
    expect(result.stderr).not.toContain('no such table');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('with --db or TOLLGATE_DB naming a missing file: creates nothing and says which setting named it', async () => {
    const viaFlag = await tollgate(dir, ['audit', '--db', 'elsewhere/audit.db']);
    expect(viaFlag.code).not.toBe(0);
    expect(viaFlag.stderr).toContain(`no database at ${join(dir, 'elsewhere', 'audit.db')} (from --db)`);
    const viaEnv = await tollgate(dir, ['audit', '--events', '0190a0a0-0000-7000-8000-000000000000'], {
      TOLLGATE_DB: join(dir, 'x.db'),
    });
    expect(viaEnv.stderr).toContain(`no database at ${join(dir, 'x.db')} (from TOLLGATE_DB)`);
    expect(existsSync(join(dir, 'elsewhere'))).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });
});
