// `tollgate/verify` as a tool server imports it, by name, from the built dist/: it loads jose and two small files of
// tollgate (the entry and the one args hash), nothing of the server — a tool server carries no gateway with it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, linkPackage } from '../../helpers/built-package.js';

let dir: string;
beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'tollgate-verify-pkg-'));
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

describe('tollgate/verify', () => {
  it('loads jose and nothing of the server', () => {
    const log = join(dir, 'verify.log');
    writeFileSync(log, '');
    const script =
      "const m = await import('tollgate/verify'); console.log(typeof m.verifyVerdict, typeof m.verifyAnchor);";
    const stdout = execFileSync(process.execPath, ['--import', './register.mjs', '--input-type=module', '-e', script], {
      cwd: dir,
      env: { ...process.env, RESOLVE_LOG: log },
      encoding: 'utf8',
    });
    expect(stdout.trim()).toBe('function function');
    const modules = readFileSync(log, 'utf8')
      .split('\n')
      .filter((url) => url.startsWith('file:'));
    const own = modules
      .filter((url) => url.includes('/dist/src/'))
      .map((url) => url.slice(url.indexOf('/dist/src/') + '/dist/src/'.length));
    expect(new Set(own)).toEqual(new Set(['verify/index.js', 'requests/args-hash.js']));
    const packages = new Set(
      modules
        .filter((url) => url.includes('/node_modules/'))
        .map((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)![1]),
    );
    expect([...packages]).toEqual(['jose']);
  });
});
