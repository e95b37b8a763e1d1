// A process whose only pending work is the approval gate's retry must stay alive until the verdict arrives.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');
let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('approvalGate retries', () => {
  it('keep the process alive while waiting to ask again', { timeout: 120_000 }, async () => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-alive-'));
    const file = join(dir, 'agent.mts');
    writeFileSync(
      file,
      `import { approvalGate } from '${join(root, 'src/hooks/index.ts')}';
let calls = 0;
const backend = { requestAndWait: async () => { if (calls++ < 2) throw new Error('gateway restarting'); return { status: 'approved', allowed: true }; } };
const gate = approvalGate({ backend, retry: { delayMs: 100 } });
const result = await gate.decide({ point: 'tool:pre', toolName: 'deploy', toolCallId: 'call_1', metadata: {} });
console.log(JSON.stringify({ action: result.action, calls }));
`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', file], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ action: 'continue', calls: 3 });
  });
});
