/**
 * `tollgate init` and a checkout that is untrusted input (#58, finding 3): a linked `hooks.json`, a linked `.codex`
 * directory, a dangling `.clinerules/hooks/PreToolUse` link and a planted `.bak` link must not make init write (or
 * create an executable) outside the project. Each is refused with an error naming the link, and nothing outside changes.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../../src/cli/init.js';

let root: string;
let home: string;
let project: string;
let outside: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tollgate-init-links-')));
  home = join(root, 'home');
  project = join(root, 'project');
  outside = join(root, 'outside');
  for (const dir of [home, project, outside]) mkdirSync(dir);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function init(argv: string[]): Promise<number> {
  return run(argv, {
    stdout: { write: () => true },
    env: { HOME: home, PATH: '' },
    cwd: project,
    bin: '/opt/tollgate/bin/tollgate.js',
  });
}

describe('tollgate init refuses links out of the project', () => {
  it('a linked hooks.json: refused naming it, the victim unchanged', async () => {
    const victim = join(outside, 'victim.json');
    writeFileSync(victim, '{"mine": true}\n');
    mkdirSync(join(project, '.codex'));
    symlinkSync(victim, join(project, '.codex', 'hooks.json'));
    await expect(init(['codex'])).rejects.toThrow(/\.codex\/hooks\.json is a symbolic link/);
    expect(readFileSync(victim, 'utf8')).toBe('{"mine": true}\n');
    expect(existsSync(`${victim}.bak`)).toBe(false);
  });

  it('a linked .codex directory: refused naming it, nothing written outside', async () => {
    symlinkSync(outside, join(project, '.codex'));
    await expect(init(['codex'])).rejects.toThrow(/\.codex is a symbolic link/);
    expect(existsSync(join(outside, 'hooks.json'))).toBe(false);
  });

  it('a dangling .clinerules/hooks/PreToolUse link: no executable created outside', async () => {
    mkdirSync(join(project, '.clinerules', 'hooks'), { recursive: true });
    symlinkSync('../../../outside/evil', join(project, '.clinerules', 'hooks', 'PreToolUse'));
    await expect(init(['cline'])).rejects.toThrow(/PreToolUse is a symbolic link/);
    expect(existsSync(join(outside, 'evil'))).toBe(false);
  });

  it('a planted .bak link: the backup never writes through it', async () => {
    const victim = join(outside, 'victim.json');
    writeFileSync(victim, 'precious\n');
    mkdirSync(join(project, '.gemini'));
    writeFileSync(join(project, '.gemini', 'settings.json'), '{"theme": "dark"}\n');
    symlinkSync(victim, join(project, '.gemini', 'settings.json.bak'));
    await expect(init(['gemini'])).rejects.toThrow(/settings\.json\.bak is a symbolic link/);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
  });

  it('still writes regular files inside the project, executable where the agent wants one', async () => {
    expect(await init(['cline'])).toBe(0);
    const hook = join(project, '.clinerules', 'hooks', 'PreToolUse');
    expect(lstatSync(hook).isFile()).toBe(true);
    expect(lstatSync(hook).mode & 0o111).not.toBe(0);
  });
});

describe('the hook command outlives npx and package-manager caches (#59, item 6)', () => {
  /** A copy of tollgate unpacked under `base`, with npm's `.bin` link to it; returns the link. */
  function unpack(base: string): string {
    const pkg = join(base, 'node_modules', 'tollgate');
    mkdirSync(join(pkg, 'bin'), { recursive: true });
    writeFileSync(join(pkg, 'bin', 'tollgate.js'), '// tollgate\n');
    mkdirSync(join(base, 'node_modules', '.bin'), { recursive: true });
    symlinkSync('../tollgate/bin/tollgate.js', join(base, 'node_modules', '.bin', 'tollgate'));
    return join(base, 'node_modules', '.bin', 'tollgate');
  }

  it("run from npx's cache, it writes the project's installed copy and says so", async () => {
    const npxBin = unpack(join(root, '.npm', '_npx', 'f00d'));
    unpack(project);
    const { hookBin } = await import('../../../src/cli/hook-bin.js');
    const chosen = hookBin(npxBin, project, { npm_config_prefix: join(root, 'no-global') });
    expect(chosen.path).toBe(join(project, 'node_modules', 'tollgate', 'bin', 'tollgate.js'));
    expect(chosen.what).toMatch(/installed package/);
  });

  it("run from npx's cache with no installed copy, it refuses and says how to install one", async () => {
    const npxBin = unpack(join(root, '.npm', '_npx', 'f00d'));
    const { hookBin } = await import('../../../src/cli/hook-bin.js');
    expect(() => hookBin(npxBin, project, { npm_config_prefix: join(root, 'no-global') })).toThrow(
      /package manager's cache .*npm install -g tollgate/,
    );
  });

  it("from a clone, the clone's bin/tollgate.js by absolute path, through npm link's links", async () => {
    const clone = join(root, 'clone');
    mkdirSync(join(clone, 'bin'), { recursive: true });
    mkdirSync(join(clone, '.git'));
    writeFileSync(join(clone, 'bin', 'tollgate.js'), '// tollgate\n');
    symlinkSync(join(clone, 'bin', 'tollgate.js'), join(root, 'linked-tollgate'));
    const { hookBin } = await import('../../../src/cli/hook-bin.js');
    expect(hookBin(join(root, 'linked-tollgate'), project, {})).toEqual({
      path: join(clone, 'bin', 'tollgate.js'),
      what: "the clone's bin/tollgate.js, by absolute path",
    });
  });
});
