/**
 * Every command refuses an option it does not take by name, with its usage, before it does anything: `tollgate init
 * codex --halp` said "--halp needs a value" (and a misspelt `--dry-run` would have written). Run in process through
 * `main`, as `bin/tollgate.js` runs it; nothing here reaches a gateway, a database or stdin, since the flags are
 * parsed first.
 */
import { describe, expect, it, vi } from 'vitest';
import { COMMANDS, main } from '../../../src/cli/main.js';

/** Each command, with the subcommand or operands it needs before its options. */
const INVOCATIONS: Record<string, string[]> = {
  serve: [],
  migrate: [],
  ask: ['may I?'],
  'claude-hook': [],
  hook: ['codex'],
  init: ['codex'],
  token: ['list'],
  'login-link': [],
  mcp: ['--name', 'x', '--', 'true'],
  policy: ['test'],
  pending: [],
  show: ['req_1'],
  approve: ['req_1'],
  deny: ['req_1'],
  watch: [],
  people: ['list'],
  audit: [],
  prune: [],
  keys: ['export'],
};

/** Runs `tollgate argv…`; what it printed (both streams) and its exit code. */
async function tollgate(argv: string[]): Promise<{ code: number; printed: string }> {
  const printed: string[] = [];
  if (argv[0] === 'hook') {
    // An agent's hook writes its answer straight to fd 1 (synchronously, before the process exits): given streams here.
    const { run } = await import('../../../src/cli/agent-hook.js');
    const write = (text: string) => void printed.push(text);
    const stdin = (async function* () {})();
    const code = await run(argv.slice(1), { stdin, stdout: { write }, stderr: { write }, env: {} });
    return { code, printed: printed.join('') };
  }
  const capture = (chunk: string | Uint8Array) => (printed.push(String(chunk)), true);
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  try {
    const code = await main(argv);
    return { code, printed: printed.join('') };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

describe('unknown options', () => {
  it('covers every command', () => {
    expect(Object.keys(INVOCATIONS).sort()).toEqual(Object.keys(COMMANDS).sort());
  });

  it.each(Object.entries(INVOCATIONS))(
    'tollgate %s … --halp names the option and shows the usage',
    async (name, argv) => {
      // mcp's options end at `--`: the unknown one goes before it.
      const at = argv.indexOf('--');
      const args = at === -1 ? [...argv, '--halp'] : [...argv.slice(0, at), '--halp', ...argv.slice(at)];
      const { code, printed } = await tollgate([name, ...args]);
      expect(printed).toContain('unknown option --halp');
      expect(printed).not.toContain('needs a value');
      expect(printed).toMatch(/usage: tollgate /i);
      // A hook answers in its agent's own words (a refusal the agent reads): the others exit 2, a usage error.
      if (name !== 'hook') expect(code).toBe(2);
    },
  );

  it('refuses --halp=x and a misspelt flag as unknown too, and still takes the real ones', async () => {
    expect((await tollgate(['init', 'codex', '--halp=x'])).printed).toContain('unknown option --halp');
    const dry = await tollgate(['init', 'codex', '--dryrun']);
    expect(dry).toMatchObject({ code: 2 });
    expect(dry.printed).toContain('tollgate init: unknown option --dryrun\nUsage: tollgate init');
    expect((await tollgate(['policy', 'test', '--tool'])).printed).toContain('--tool needs a value');
  });
});
