// The package's entry points as a user imports them, by name, from the built dist/: `tollgate/client` loads no
// server-side dependency (checked with a module resolve hook that logs every module loaded), while `tollgate` does
// (the same hook, proving it sees them), and `tollgate/hooks` exposes the approval gate.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, linkPackage } from '../../helpers/built-package.js';

const HEAVY =
  /\/node_modules\/(express|better-sqlite3|bullmq|ioredis|pg|drizzle-orm|@slack\/[^/]+|@larksuiteoapi\/[^/]+|grammy)\//;

let dir: string;
beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'tollgate-pkg-'));
  linkPackage(dir);
  writeFileSync(
    join(dir, 'log-hooks.mjs'),
    "import { appendFileSync } from 'node:fs';\nexport async function resolve(specifier, context, next) {\n  const result = await next(specifier, context);\n  appendFileSync(process.env.RESOLVE_LOG, result.url + '\\n');\n  return result;\n}\n",
  );
  writeFileSync(
    join(dir, 'register.mjs'),
    "import { register } from 'node:module';\nregister('./log-hooks.mjs', import.meta.url);\n",
  );
}, 180_000);
afterAll(() => dir && rmSync(dir, { recursive: true, force: true }));

/** Imports `specifier` in a fresh node process in the user's directory; returns what it printed and every module it loaded. */
function importAsUser(specifier: string, code = ''): { stdout: string; modules: string[] } {
  const log = join(dir, `${specifier.replace(/\W/g, '_')}.log`);
  writeFileSync(log, '');
  const script = `const m = await import('${specifier}'); ${code}`;
  const stdout = execFileSync(process.execPath, ['--import', './register.mjs', '--input-type=module', '-e', script], {
    cwd: dir,
    env: { ...process.env, RESOLVE_LOG: log },
    encoding: 'utf8',
  });
  return { stdout, modules: readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

describe('package entry points', () => {
  it('tollgate/client loads no express, database driver, BullMQ or chat SDK', () => {
    const { stdout, modules } = importAsUser(
      'tollgate/client',
      'console.log(typeof m.GateClient, typeof m.remoteBackend, typeof m.GateClientError);',
    );
    expect(stdout.trim()).toBe('function function function');
    expect(modules.some((url) => url.includes('/dist/src/client/index.js'))).toBe(true);
    expect(modules.filter((url) => HEAVY.test(url))).toEqual([]);
  });

  it('tollgate (the whole gateway) does load them, so the hook above would have seen them', () => {
    const { stdout, modules } = importAsUser('tollgate', 'console.log(typeof m.createServer, typeof m.Gateway);');
    expect(stdout.trim()).toBe('function function');
    const heavy = new Set(modules.filter((url) => HEAVY.test(url)).map((url) => HEAVY.exec(url)![1]));
    expect(heavy).toContain('express');
    expect(heavy).toContain('better-sqlite3');
    // Telegram's SDK is imported only when the channel is configured (channels/index.ts), never by the package itself.
    expect(heavy).not.toContain('grammy');
  });

  it('tollgate/hooks gives the approval gate and the hook registry', () => {
    const { stdout } = importAsUser(
      'tollgate/hooks',
      'console.log(typeof m.approvalGate, typeof m.HookRegistry, typeof m.remoteBackend);',
    );
    expect(stdout.trim()).toBe('function function function');
  });
});
