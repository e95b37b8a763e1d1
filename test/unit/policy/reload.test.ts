import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PolicyGate } from '../../../src/policy/gate.js';
import { emptyPolicy, matchPolicy } from '../../../src/policy/index.js';
import { watchPolicy } from '../../../src/gateway/policy-reload.js';

const dir = mkdtempSync(join(tmpdir(), 'tollgate-reload-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('policy reload', () => {
  it('SIGHUP puts a new file in force; an invalid file keeps the old rules and logs why', () => {
    const path = join(dir, 'tollgate.yaml');
    writeFileSync(path, 'policies:\n  - { name: reads, match: { tool: "read_*" }, decision: allow }\n');
    const gate = new PolicyGate(emptyPolicy());
    const logs: { level: string; obj: Record<string, unknown>; msg: string }[] = [];
    const logger = {
      info: (obj: Record<string, unknown>, msg: string) => logs.push({ level: 'info', obj, msg }),
      error: (obj: Record<string, unknown>, msg: string) => logs.push({ level: 'error', obj, msg }),
    };
    const stop = watchPolicy({ gate, path, logger: logger as never, pollMs: 0 });
    try {
      process.emit('SIGHUP', 'SIGHUP');
      expect(matchPolicy(gate.policy, { toolName: 'read_file' }).rule.name).toBe('reads');

      writeFileSync(path, 'policies:\n  - { name: reads, match: { when: "args.x >" } }\n');
      process.emit('SIGHUP', 'SIGHUP');
      expect(matchPolicy(gate.policy, { toolName: 'read_file' }).rule.name).toBe('reads');
      expect(logs.at(-1)).toMatchObject({ level: 'error', msg: 'policy not reloaded; the rules in force stay' });
      expect(String(logs.at(-1)!.obj.err)).toContain('policies[0] "reads".match.when: line 1, column');
    } finally {
      stop();
    }
    process.emit('SIGHUP', 'SIGHUP'); // no longer listening: nothing changes, nothing logged
    expect(logs).toHaveLength(2);
  });
});
