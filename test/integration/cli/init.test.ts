/**
 * `tollgate init <agent>` for every agent, against a temporary HOME and project: it merges with an existing
 * configuration (other hooks and settings stay), keeps a `.bak`, prints the diff, sets the agent's timeout from
 * `--wait`, and running it twice changes nothing; `--dry-run` writes nothing; `tollgate init` alone lists the agents
 * and whether each is wired.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../../src/cli/init.js';

let root: string;
let home: string;
let project: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tollgate-init-'));
  home = join(root, 'home');
  project = join(root, 'project');
  mkdirSync(home);
  mkdirSync(project);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const BIN = '/opt/tollgate/bin/tollgate.js';
async function init(argv: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  let out = '';
  const code = await run(argv, {
    stdout: { write: (s: string) => (out += s) },
    env: { HOME: home, PATH: '', ...env },
    cwd: project,
    bin: BIN,
  });
  return { code, out };
}
const write = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};

/** A parsed configuration, read loosely: each case knows its agent's shape. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reading JSON of eight different shapes
type Config = any;

/** Each agent: its project file, an existing configuration with someone else's hook, and what must hold after. */
const CASES: { agent: string; file: string; existing: unknown; check(config: Config, text: string): void }[] = [
  {
    agent: 'claude',
    file: '.claude/settings.json',
    existing: {
      model: 'opus',
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'lint-guard' }] }] },
    },
    check(config) {
      expect(config.model).toBe('opus');
      expect(config.hooks.PreToolUse[0].hooks[0].command).toBe('lint-guard');
      expect(config.hooks.PreToolUse[1].hooks[0]).toEqual({
        type: 'command',
        command: `"${process.execPath}" "${BIN}" claude-hook --timeout 120`,
        timeout: 130,
      });
    },
  },
  {
    agent: 'codex',
    file: '.codex/hooks.json',
    existing: { hooks: { PostToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: 'log-it' }] }] } },
    check(config) {
      expect(config.hooks.PostToolUse).toHaveLength(1);
      expect(config.hooks.PreToolUse).toEqual([
        {
          matcher: '*',
          hooks: [{ type: 'command', command: `"${process.execPath}" "${BIN}" hook codex --wait 120`, timeout: 130 }],
        },
      ]);
    },
  },
  {
    agent: 'gemini',
    file: '.gemini/settings.json',
    existing: { theme: 'dark' },
    check(config) {
      expect(config.theme).toBe('dark');
      expect(config.hooks.BeforeTool[0].hooks[0]).toMatchObject({
        type: 'command',
        command: expect.stringContaining('hook gemini --wait 120'),
        timeout: 130_000,
      });
    },
  },
  {
    agent: 'qwen',
    file: '.qwen/settings.json',
    existing: { hooks: { PreToolUse: [{ matcher: 'edit', hooks: [{ type: 'command', command: 'fmt-check' }] }] } },
    check(config) {
      expect(config.hooks.PreToolUse.map((g: Config) => g.hooks[0].command)).toEqual([
        'fmt-check',
        expect.stringContaining('hook qwen --wait 120'),
      ]);
      expect(config.hooks.PreToolUse[1].hooks[0].timeout).toBe(130);
    },
  },
  {
    agent: 'cursor',
    file: '.cursor/hooks.json',
    existing: { version: 1, hooks: { afterFileEdit: [{ command: 'prettier' }] } },
    check(config) {
      expect(config.hooks.afterFileEdit).toEqual([{ command: 'prettier' }]);
      expect(config.hooks.beforeShellExecution).toEqual([
        { command: expect.stringContaining('hook cursor --wait 120'), timeout: 130 },
      ]);
      expect(config.hooks.beforeMCPExecution).toHaveLength(1);
    },
  },
  {
    agent: 'copilot',
    file: '.github/hooks/tollgate.json',
    existing: { version: 1, hooks: { sessionStart: [{ type: 'command', bash: 'echo hi' }] } },
    check(config) {
      expect(config.hooks.sessionStart).toHaveLength(1);
      expect(config.hooks.preToolUse).toEqual([
        { type: 'command', bash: expect.stringContaining('hook copilot --wait 120'), timeoutSec: 130 },
      ]);
    },
  },
  {
    agent: 'cline',
    file: '.clinerules/hooks/PreToolUse',
    existing: null,
    check(_config, text) {
      expect(text).toMatch(/^#!\/bin\/sh\n/);
      expect(text).toContain(`exec "${process.execPath}" "${BIN}" hook cline --wait 120`);
    },
  },
  {
    agent: 'opencode',
    file: '.opencode/plugin/tollgate.js',
    existing: null,
    check(_config, text) {
      expect(text).toContain("'tool.execute.before'");
      expect(text).toContain(JSON.stringify(`"${process.execPath}" "${BIN}" hook opencode --wait 120`));
    },
  },
];

describe('tollgate init <agent>', () => {
  it.each(CASES)(
    '$agent: merges with the existing configuration, keeps a .bak, and a second run changes nothing',
    async ({ agent, file, existing, check }) => {
      const path = join(project, file);
      const before = existing === null ? null : `${JSON.stringify(existing, null, 2)}\n`;
      if (before !== null) write(path, before);

      const dry = await init([agent, '--wait', '120', '--dry-run']);
      expect(dry.code).toBe(0);
      expect(dry.out).toMatch(/Would change/);
      expect(dry.out).toMatch(/^\+ .*tollgate/m);
      expect(existsSync(path) ? readFileSync(path, 'utf8') : null).toBe(before);

      const first = await init([agent, '--wait', '120']);
      expect(first.code).toBe(0);
      const text = readFileSync(path, 'utf8');
      check(agent === 'cline' || agent === 'opencode' ? null : JSON.parse(text), text);
      if (before !== null) expect(readFileSync(`${path}.bak`, 'utf8')).toBe(before);
      if (agent === 'cline') expect(statSync(path).mode & 0o111).not.toBe(0);

      const second = await init([agent, '--wait', '120']);
      expect(second.out).toMatch(/nothing changed/);
      expect(readFileSync(path, 'utf8')).toBe(text);

      // Another --wait replaces tollgate's entry instead of adding a second one.
      await init([agent, '--wait', '30']);
      const again = readFileSync(path, 'utf8');
      const flag = agent === 'claude' ? '--timeout' : '--wait';
      expect(again.match(/--(wait|timeout) \d+/g)).toEqual(
        agent === 'cursor' ? [`${flag} 30`, `${flag} 30`] : [`${flag} 30`],
      );
    },
  );

  it('writes user-scope files under HOME (and CODEX_HOME)', async () => {
    await init(['gemini', '--scope', 'user']);
    expect(existsSync(join(home, '.gemini/settings.json'))).toBe(true);
    await init(['codex', '--scope', 'user'], { CODEX_HOME: join(home, 'codex-home') });
    expect(existsSync(join(home, 'codex-home/hooks.json'))).toBe(true);
    await init(['cline', '--scope', 'user']);
    expect(existsSync(join(home, 'Documents/Cline/Hooks/PreToolUse'))).toBe(true);
    // Copilot CLI's user settings take the same hooks schema as its repository files (no version key there).
    write(join(home, '.copilot/settings.json'), JSON.stringify({ model: 'gpt-5' }));
    await init(['copilot', '--scope', 'user']);
    const copilot = JSON.parse(readFileSync(join(home, '.copilot/settings.json'), 'utf8')) as Record<string, unknown>;
    expect(copilot).toEqual({
      model: 'gpt-5',
      hooks: {
        preToolUse: [{ type: 'command', bash: expect.stringContaining('hook copilot --wait 50'), timeoutSec: 60 }],
      },
    });
    await expect(init(['nosuch'])).rejects.toThrow(/unknown agent "nosuch"/);
  });

  it('refuses to merge into a file that is not JSON, and changes nothing', async () => {
    write(join(project, '.gemini/settings.json'), '{ not json');
    await expect(init(['gemini'])).rejects.toThrow(/not valid JSON/);
    expect(readFileSync(join(project, '.gemini/settings.json'), 'utf8')).toBe('{ not json');
  });

  it('lists every agent, whether it is installed and whether it is wired', async () => {
    const bin = join(root, 'bin');
    write(join(bin, 'gemini'), '#!/bin/sh\n');
    const { chmodSync } = await import('node:fs');
    chmodSync(join(bin, 'gemini'), 0o755);
    await init(['gemini']);
    await init(['codex', '--scope', 'user']);
    const { out } = await init([], { PATH: bin });
    expect(out).toMatch(/^gemini\s+found\s+wired \(project\)$/m);
    expect(out).toMatch(/^codex\s+not found\s+wired \(user\)$/m);
    expect(out).toMatch(/^cursor\s+not found\s+not wired$/m);
  });
});
