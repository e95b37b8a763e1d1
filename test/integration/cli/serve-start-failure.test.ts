/**
 * A start that fails after the database is open (here: a policy rule sending cards to a channel that is not enabled)
 * closes the database and exits 1 saying why; and closing SQLite stores whose background checkpointer runs finishes
 * even when nothing else keeps the process alive (it used to end the process mid-close, exit 13, nothing printed).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const BIN = new URL('../../../bin/tollgate.js', import.meta.url).pathname;
let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('tollgate serve, failing after the database opened', () => {
  it('exits 1 naming the rule and the channel', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-start-failure-'));
    const config = join(dir, 'tollgate.yaml');
    writeFileSync(
      config,
      'policies:\n  - { name: pay, match: { tool: pay }, channels: [{ type: slack, target: C0PAY }] }\n',
    );
    const result = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [BIN, 'serve', '--port', '0', '--db', join(dir, 'tollgate.db'), '--config', config],
        { env: { ...process.env, TOLLGATE_API_TOKENS: 'tg_test' }, timeout: 30_000 },
        (error, _stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stderr }),
      );
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('channel "slack" is not enabled');
  });

  it('closes SQLite stores with a background checkpointer when nothing else keeps the process alive', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-close-'));
    const script = join(dir, 'close.mts');
    const openStore = fileURLToPath(new URL('../../../src/stores/open-store.ts', import.meta.url));
    writeFileSync(
      script,
      `import { openStores } from ${JSON.stringify(openStore)};\nconst stores = await openStores(${JSON.stringify(join(dir, 't.db'))}, { backgroundCheckpoints: true });\nawait stores.close();\nconsole.log('closed');\n`,
    );
    const result = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(
        process.execPath,
        [fileURLToPath(new URL('../../../node_modules/tsx/dist/cli.mjs', import.meta.url)), script],
        { timeout: 30_000 },
        (error, stdout) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout }),
      );
    });
    expect(result).toEqual({ code: 0, stdout: 'closed\n' });
  });
});
