/** Which config file a command reads: the flag, then TOLLGATE_CONFIG, then ./tollgate.yaml, and the line serve prints. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configLine, findConfigFile } from '../../../src/cli/config-file.js';

describe('findConfigFile', () => {
  const empty = mkdtempSync(join(tmpdir(), 'tollgate-cfg-'));
  const withFile = mkdtempSync(join(tmpdir(), 'tollgate-cfg-'));
  writeFileSync(join(withFile, 'tollgate.yaml'), 'defaults: { timeout_s: 60 }\n');

  it('takes --config first, then TOLLGATE_CONFIG, then ./tollgate.yaml', () => {
    const env = { TOLLGATE_CONFIG: '/etc/tollgate.yaml' };
    expect(findConfigFile('a.yaml', env, withFile)).toEqual({ path: 'a.yaml', source: '--config' });
    expect(findConfigFile(undefined, env, withFile)).toEqual({ path: '/etc/tollgate.yaml', source: 'TOLLGATE_CONFIG' });
    expect(findConfigFile(undefined, {}, withFile)).toEqual({
      path: join(withFile, 'tollgate.yaml'),
      source: './tollgate.yaml',
    });
    expect(findConfigFile(undefined, {}, empty)).toEqual({ path: null, source: null });
  });

  it('says which file was read, or that none was', () => {
    expect(configLine(findConfigFile(undefined, {}, withFile))).toBe(
      `config: ${join(withFile, 'tollgate.yaml')} (from ./tollgate.yaml)`,
    );
    expect(configLine(findConfigFile(undefined, {}, empty))).toMatch(/^config: none \(no --config, no TOLLGATE_CONFIG/);
  });
});
