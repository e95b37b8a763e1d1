import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  HookConfigError,
  HookRegistry,
  MemoryAuditSink,
  ToolExecutor,
  defineBuiltin,
  loadHookConfig,
  loadHookConfigFile,
} from '../../../src/hooks/index.js';
import { z } from 'zod';
import { memoryLogger } from './helpers.js';

const YAML = `
server: { port: 8787 }          # other sections of tollgate.yaml are ignored
hooks:
  tool:pre:
    - use: policy
      priority: 10
      config:
        deny_tools: ["shell"]
    - use: guard_destructive
      priority: 20
  tool:post:
    - use: truncate_result
      config: { max_chars: 5 }
profiles:
  ci:
    hooks:
      tool:pre:
        - use: policy
          config: { allow_tools: ["echo"] }
  open:
    hooks:
      tool:pre: []
`;

const dir = mkdtempSync(join(tmpdir(), 'tollgate-hooks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const registry = () => new HookRegistry({ logger: memoryLogger() });

describe('loadHookConfig', () => {
  it('registers the hooks listed per point, with priorities', () => {
    const { registry: r, registered } = loadHookConfig(YAML, { registry: registry() });
    expect(registered).toEqual([
      { point: 'tool:pre', name: 'policy', use: 'policy' },
      { point: 'tool:pre', name: 'guard_destructive', use: 'guard_destructive' },
      { point: 'tool:post', name: 'truncate_result', use: 'truncate_result' },
    ]);
    expect(r.list('tool:pre').map((h) => [h.name, h.priority])).toEqual([
      ['policy', 10],
      ['guard_destructive', 20],
    ]);
  });

  it('loaded hooks behave: policy denies, truncate cuts', async () => {
    const { registry: r } = loadHookConfig(YAML, { registry: registry() });
    const executor = new ToolExecutor({ registry: r, tools: { shell: () => 'x', echo: () => 'hello world' } });
    expect((await executor.execute('shell', {})).status).toBe('blocked');
    const out = await executor.execute('echo', {});
    expect(out.status === 'ok' && out.result).toBe('hello\n[… truncated 6 characters of 11]');
  });

  it('a profile’s list replaces the defaults at that point only; other points keep theirs', () => {
    const { registered } = loadHookConfig(YAML, { registry: registry(), profile: 'ci' });
    expect(registered.map((r) => `${r.point} ${r.use}`)).toEqual(['tool:pre policy', 'tool:post truncate_result']);
  });

  it('an empty profile list disables the defaults at that point', () => {
    const { registered } = loadHookConfig(YAML, { registry: registry(), profile: 'open' });
    expect(registered.map((r) => `${r.point} ${r.use}`)).toEqual(['tool:post truncate_result']);
  });

  it('unknown profiles are errors listing the known ones', () => {
    expect(() => loadHookConfig(YAML, { file: 'tollgate.yaml', profile: 'prod' })).toThrow(
      'tollgate.yaml: profiles.prod: unknown profile (known: ci, open)',
    );
  });

  it('interpolates ${ENV}, ${ENV:-default} and $${literal} in config', () => {
    const yaml = `
hooks:
  tool:pre:
    - use: webhook
      config:
        url: "\${HOOK_URL}"
        auth_header: "Bearer \${HOOK_TOKEN:-none}"
        headers: { x-note: "$\${NOT_A_VAR}" }
`;
    const loaded = loadHookConfig(yaml, {
      registry: registry(),
      env: { HOOK_URL: 'https://hooks.example.com/approve' },
    });
    expect(loaded.registered.map((r) => r.point)).toEqual(['tool:pre', 'tool:post', 'tool:error']);
    expect(() => loadHookConfig(yaml, { file: 'a.yaml', env: {} })).toThrow(
      'a.yaml: hooks.tool:pre[0].config.url: environment variable HOOK_URL is not set',
    );
  });

  it('names the file and the path of invalid config', () => {
    const yaml = `
hooks:
  tool:pre:
    - use: passthrough
    - use: policy
      config:
        allow_tools: "shell"
`;
    expect(() => loadHookConfig(yaml, { file: 'tollgate.yaml' })).toThrow(
      'tollgate.yaml: hooks.tool:pre[1].config.allow_tools: expected array',
    );
    try {
      loadHookConfig(yaml, { file: 'tollgate.yaml' });
    } catch (err) {
      expect(err).toBeInstanceOf(HookConfigError);
      expect((err as HookConfigError).path).toBe('hooks.tool:pre[1].config.allow_tools');
    }
  });

  it('rejects unknown hook names, misplaced hooks, unknown keys and bad regexes, registering nothing', () => {
    const r = registry();
    expect(() => loadHookConfig('hooks:\n  tool:pre:\n    - use: polcy\n', { file: 'x.yaml', registry: r })).toThrow(
      /x\.yaml: hooks\.tool:pre\[0\]\.use: unknown hook "polcy" \(known: .*policy/,
    );
    expect(() => loadHookConfig('hooks:\n  tool:pre:\n    - use: truncate_result\n', { file: 'x.yaml' })).toThrow(
      'x.yaml: hooks.tool:pre[0].use: "truncate_result" cannot run at tool:pre (it runs at tool:post)',
    );
    expect(() =>
      loadHookConfig('hooks:\n  tool:pre:\n    - use: policy\n      config: { deny_tool: [a] }\n', { file: 'x.yaml' }),
    ).toThrow('x.yaml: hooks.tool:pre[0].config: unknown field(s): deny_tool');
    expect(() =>
      loadHookConfig(
        'hooks:\n  tool:pre:\n    - use: policy\n      config: { deny_argument_patterns: { command: ["(unclosed"] } }\n',
        { file: 'x.yaml' },
      ),
    ).toThrow('x.yaml: hooks.tool:pre[0].config.deny_argument_patterns.command[0]: invalid regular expression');
    expect(() =>
      loadHookConfig('hooks:\n  tool:pre:\n    - use: policy\n      priorty: 3\n', { file: 'x.yaml' }),
    ).toThrow('x.yaml: hooks.tool:pre[0]: unknown field(s): priorty');
    expect(() => loadHookConfig('hooks:\n  toolpre:\n    - use: policy\n', { file: 'x.yaml' })).toThrow(
      'x.yaml: hooks.toolpre: invalid hook point name',
    );
    expect(() => loadHookConfig('hooks: [1', { file: 'x.yaml' })).toThrow(/^x\.yaml: invalid YAML/);
    expect(() =>
      loadHookConfig('hooks:\n  tool:pre:\n    - use: passthrough\n    - use: nope\n', { registry: r }),
    ).toThrow(/unknown hook/);
    expect(r.list()).toEqual([]);
  });

  it('loads from a file and names it in errors', async () => {
    const good = join(dir, 'tollgate.yaml');
    writeFileSync(good, YAML);
    const { registered } = await loadHookConfigFile(good, { registry: registry() });
    expect(registered).toHaveLength(3);
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'hooks:\n  tool:post:\n    - use: truncate_result\n      config: { max_chars: -1 }\n');
    await expect(loadHookConfigFile(bad)).rejects.toThrow(`${bad}: hooks.tool:post[0].config.max_chars`);
    await expect(loadHookConfigFile(join(dir, 'missing.yaml'))).rejects.toThrow(/missing\.yaml: cannot read/);
  });

  it('accepts user-defined name-addressable hooks and an audit sink; unregister removes all', async () => {
    const sink = new MemoryAuditSink();
    const shout = defineBuiltin({
      name: 'shout',
      summary: 'uppercases results',
      schema: z.strictObject({ suffix: z.string().default('') }),
      points: ['tool:post'],
      create: (config) => (ctx) => ({ action: 'modify', data: `${String(ctx.result).toUpperCase()}${config.suffix}` }),
    });
    const yaml =
      'hooks:\n  tool:pre:\n    - use: audit_log\n      priority: 0\n  tool:post:\n    - use: shout\n      config: { suffix: "!" }\n';
    const loaded = loadHookConfig(yaml, { registry: registry(), hooks: { shout }, auditSink: sink });
    const out = await new ToolExecutor({ registry: loaded.registry, tools: { hi: () => 'hi' } }).execute('hi', {
      a: 1,
    });
    expect(out.status === 'ok' && out.result).toBe('HI!');
    expect(sink.entries.map((e) => e.event)).toEqual(['call', 'result']);
    loaded.unregister();
    expect(loaded.registry.list()).toEqual([]);
  });
});
