/**
 * @module cli/hook-bin
 * Which tollgate the hook command `tollgate init` writes should run. The agent runs it on every tool call, for as long
 * as the configuration lives, so it must outlive the process that wrote it: `npx tollgate init codex` runs from npx's
 * cache (`~/.npm/_npx/<hash>/…`), which npm cleans when it likes, and a hook that no longer exists crashes — and some
 * agents (Gemini CLI) run the tool when their hook crashes. So the path written is this tollgate's own bin resolved
 * through its links (a clone's `bin/tollgate.js`, or the installed package's), and when that lies in a package
 * manager's throwaway cache, an installed copy (the project's `node_modules`, or the global one) or an error that says
 * how to install one.
 */
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { UsageError } from './args.js';

/** Where npx, `pnpm dlx`, `yarn dlx` and `bunx` unpack a package for one run. */
const THROWAWAY = /[\\/](?:_npx|dlx|dlx-[^\\/]*|bunx-[^\\/]*|\.bun[\\/]install[\\/]cache)[\\/]/;

/** The bin the hook runs, and which kind it is (said to the user). */
export interface HookBin {
  path: string;
  what: string;
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * The durable path of tollgate's bin for a hook command.
 * @param bin the bin this process was started as (`process.argv[1]`)
 * @param projectDir where init writes (its `node_modules/tollgate` is an installed copy)
 * @throws UsageError when tollgate runs from a throwaway cache and no installed copy is found
 */
export function hookBin(bin: string, projectDir: string, env: Record<string, string | undefined>): HookBin {
  const path = real(bin);
  if (!THROWAWAY.test(path)) {
    const root = dirname(dirname(path));
    return existsSync(join(root, '.git'))
      ? { path, what: "the clone's bin/tollgate.js, by absolute path" }
      : { path, what: "the installed package's own bin, by absolute path" };
  }
  const prefixes = [env.npm_config_prefix, env.PREFIX, dirname(dirname(process.execPath))].filter(Boolean) as string[];
  const installed = [
    join(projectDir, 'node_modules', 'tollgate', 'bin', 'tollgate.js'),
    ...prefixes.map((prefix) => join(prefix, 'lib', 'node_modules', 'tollgate', 'bin', 'tollgate.js')),
  ]
    .map(real)
    .find((candidate) => existsSync(candidate) && !THROWAWAY.test(candidate));
  if (installed)
    return { path: installed, what: "the installed package's own bin (not npx's cache, which npm may clean)" };
  throw new UsageError(
    `tollgate is running from a package manager's cache (${path}), which may be cleaned at any time: a hook pointing ` +
      'there would break. Install tollgate first (npm install -g tollgate, or npm install -D tollgate in the project, ' +
      'or npm link in a clone, or run node <clone>/bin/tollgate.js init …), then run init again.',
  );
}
