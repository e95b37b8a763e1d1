/**
 * `tollgate serve` on the embedded default (SQLite, in-process scheduler, web inbox; no OIDC, no policy `when:`, no
 * signing key asked for yet) does not load openid-client, jose or cel-js: each costs the idle process memory that
 * node itself does not (issue 35: parked waiters cost what node costs). A static import of one of them anywhere on
 * the path from `serve` fails this test. The real gateway in a child process; a module hook records what it loads.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const BIN = new URL('../../../bin/tollgate.js', import.meta.url).pathname;
/** The packages a default start must leave alone, and what configures each. */
const LAZY = ['openid-client', 'jose', '@marcbachmann/cel-js'];

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A preload that writes every module the process loads to `log`: ES modules as the loader resolves them (a hook
 * thread), CommonJS and `require`d ES modules from the require cache when the process exits.
 */
function recorder(log: string): string {
  const hooks = join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';\nexport async function resolve(specifier, context, next) {\n  const result = await next(specifier, context);\n  appendFileSync(${JSON.stringify(log)}, result.url + '\\n');\n  return result;\n}\n`,
  );
  const preload = join(dir, 'record.mjs');
  writeFileSync(
    preload,
    `import { register, createRequire } from 'node:module';\nimport { appendFileSync } from 'node:fs';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\nconst cache = createRequire(import.meta.url).cache;\nprocess.on('exit', () => appendFileSync(${JSON.stringify(log)}, Object.keys(cache).join('\\n') + '\\n'));\n`,
  );
  return preload;
}

describe('tollgate serve, embedded default', () => {
  it('starts without loading openid-client, jose or cel-js', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-lazy-'));
    const log = join(dir, 'modules.txt');
    writeFileSync(log, '');
    const child = spawn(
      process.execPath,
      ['--import', recorder(log), BIN, 'serve', '--port', '0', '--host', '127.0.0.1', '--db', join(dir, 't.db')],
      {
        env: { ...process.env, TOLLGATE_API_TOKENS: 'tg_lazy_modules_test', LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    // Up, and past the login link (the last thing a start does): then stop it the way a supervisor does.
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        output += d.toString();
        if (output.includes('Web inbox')) resolve();
      });
      child.once('exit', () => reject(new Error(`serve exited before it was up:\n${output}`)));
    });
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
    const loaded = readFileSync(log, 'utf8').split('\n');
    // The recorder works: the web inbox's own module and the SQLite driver are in the list.
    expect(loaded.some((m) => m.includes('channels/web/web-channel'))).toBe(true);
    expect(loaded.some((m) => m.includes('/node_modules/better-sqlite3/'))).toBe(true);
    for (const name of LAZY)
      expect(
        loaded.filter((m) => m.includes(`/node_modules/${name}/`)),
        name,
      ).toEqual([]);
  }, 60_000);
});
