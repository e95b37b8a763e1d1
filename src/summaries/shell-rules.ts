/**
 * @module summaries/shell-rules
 * What one program's arguments say about risk, as codes (`reasons.ts`): deletion, history rewrites, privilege,
 * network egress with its hosts, writes outside the working directory, secrets read, package installs, disks.
 */
import { basename } from 'node:path';
import { isOutsideCwd, isSecretPath } from './paths.js';
import type { ReasonCode } from './reasons.js';

/** What a command's own words raise. */
export interface CommandRisk {
  flags: ReasonCode[];
  hosts: string[];
  /** Paths written outside the working directory, for the reason's sentence. */
  outside: string[];
  secrets: string[];
}

/** Programs that run the rest of their words as another command (`sudo rm …`). */
const WRAPPERS: Record<string, { optionsWithValue: RegExp }> = {
  sudo: { optionsWithValue: /^-[ugpChTrt]$/ },
  doas: { optionsWithValue: /^-[uC]$/ },
  env: { optionsWithValue: /^-[uSC]$/ },
  nohup: { optionsWithValue: /^$/ },
  time: { optionsWithValue: /^-[fo]$/ },
  nice: { optionsWithValue: /^-n$/ },
  timeout: { optionsWithValue: /^-[sk]$/ },
  xargs: { optionsWithValue: /^-[IiLlnPsEd]$/ },
  exec: { optionsWithValue: /^-a$/ },
  command: { optionsWithValue: /^$/ },
  builtin: { optionsWithValue: /^$/ },
  stdbuf: { optionsWithValue: /^$/ },
};
/** Programs that raise privileges by themselves. */
export const PRIVILEGE = new Set(['sudo', 'doas', 'su', 'pkexec', 'runas']);
/** Programs that fetch from the network. */
export const FETCHERS = new Set(['curl', 'wget', 'fetch', 'aria2c', 'http', 'https', 'xh', 'lwp-request']);
/** Programs that run the code they are fed. */
export const INTERPRETERS = new Set([
  'sh',
  'bash',
  'zsh',
  'dash',
  'ksh',
  'fish',
  'python',
  'python3',
  'python2',
  'node',
  'perl',
  'ruby',
  'php',
  'deno',
  'bun',
  'pwsh',
  'iex',
  'source',
  '.',
]);
const NETWORK = new Set([
  ...FETCHERS,
  'ssh',
  'scp',
  'sftp',
  'rsync',
  'nc',
  'ncat',
  'netcat',
  'telnet',
  'ftp',
  'socat',
  'ping',
  'dig',
  'nslookup',
]);
const DISK = new Set(['mkfs', 'fdisk', 'sfdisk', 'parted', 'wipefs', 'shred', 'mkswap']);
/** Sub-commands that install packages, per package manager. */
const INSTALLS: Record<string, RegExp> = {
  npm: /^(install|i|add|ci|update|exec)$/,
  pnpm: /^(install|i|add|update|dlx)$/,
  yarn: /^(install|add|dlx)$/,
  bun: /^(install|i|add|x)$/,
  pip: /^install$/,
  pip3: /^install$/,
  pipx: /^(install|run)$/,
  uv: /^(add|pip|tool)$/,
  poetry: /^add$/,
  apt: /^install$/,
  'apt-get': /^install$/,
  yum: /^install$/,
  dnf: /^install$/,
  apk: /^add$/,
  zypper: /^(install|in)$/,
  brew: /^install$/,
  gem: /^install$/,
  cargo: /^(install|add)$/,
  go: /^(install|get)$/,
  composer: /^(require|install)$/,
};

/** The program's name without its directory (`/usr/bin/rm` → `rm`). */
export const programName = (word: string): string => basename(word);

/**
 * Splits a wrapper off the front: `sudo -u root rm -rf x` → `rm -rf x`. Returns null when `argv` is no wrapper.
 * @example innerCommand(['env', 'A=1', 'make']) // ['make']
 */
export function innerCommand(argv: readonly string[]): string[] | null {
  const wrapper = WRAPPERS[programName(argv[0] ?? '')];
  if (!wrapper) return null;
  let i = 1;
  while (i < argv.length) {
    const word = argv[i]!;
    if (/^\w+=/.test(word)) i++;
    else if (word === '--') {
      i++;
      break;
    } else if (word.startsWith('-')) i += wrapper.optionsWithValue.test(word) ? 2 : 1;
    else if (programName(argv[0]!) === 'timeout' && /^\d/.test(word)) i++;
    else break;
  }
  return i < argv.length ? argv.slice(i) : null;
}

/** Single-letter options given in any form (`-rf`, `-r -f`, `--recursive`). */
function hasOption(args: readonly string[], letters: string, long: readonly string[]): boolean {
  return args.some(
    (a) => long.includes(a) || (/^-[a-zA-Z]+$/.test(a) && [...letters].some((l) => a.slice(1).includes(l))),
  );
}

/** A chmod mode that lets others write: octal with the others' write bit (`777`, `0666`), or `o+w`, `a+w`, `a=rwx`. */
function isWorldWritableMode(mode: string): boolean {
  if (/^[0-7]{3,4}$/.test(mode)) return (Number(mode.at(-1)) & 2) === 2;
  return /(^|,)[ugo]*[oa][ugo]*[+=][rwxXst]*w/.test(mode);
}

/** Host of a URL, `user@host:path` or `user@host`. */
export function hostOf(word: string): string | null {
  const url = /^[a-z][\w+.-]*:\/\/(?:[^/@\s]+@)?(\[[^\]]+\]|[^/:?#\s]+)/i.exec(word);
  if (url) return url[1]!.toLowerCase();
  const scp = /^(?:[\w.-]+@)([\w.-]+)(?::|$)/.exec(word);
  return scp ? scp[1]!.toLowerCase() : null;
}

/** Paths a command writes to, besides its redirections. */
function writtenPaths(program: string, args: readonly string[]): string[] {
  const operands = args.filter((a) => !a.startsWith('-'));
  switch (program) {
    case 'cp':
    case 'mv':
    case 'install':
    case 'ln':
      return operands.slice(-1);
    case 'tee':
    case 'touch':
    case 'mkdir':
    case 'rm':
    case 'rmdir':
    case 'truncate':
      return operands;
    case 'dd':
      return args.filter((a) => a.startsWith('of=')).map((a) => a.slice(3));
    case 'sed':
      return hasOption(args, 'i', ['--in-place']) ? operands.slice(1) : [];
    case 'curl':
    case 'wget': {
      const i = args.findIndex((a) => a === '-o' || a === '-O' || a === '--output' || a === '--output-document');
      return i >= 0 && args[i + 1] ? [args[i + 1]!] : [];
    }
    default:
      return [];
  }
}

/**
 * The risk codes of one simple command (wrappers already split off by the caller), given its redirections.
 * @example commandRisk(['rm', '-rf', '/'], ['/etc/x'], [], '/repo').flags // ['recursive_delete', 'write_outside_cwd']
 */
export function commandRisk(
  argv: readonly string[],
  writes: readonly string[],
  reads: readonly string[],
  cwd: string | null | undefined,
): CommandRisk {
  const program = programName(argv[0] ?? '');
  const args = argv.slice(1);
  const flags = new Set<ReasonCode>();
  const hosts: string[] = [];
  const sub = args.find((a) => !a.startsWith('-'));
  if (program === 'rm') {
    if (hasOption(args, 'rR', ['--recursive'])) flags.add('recursive_delete');
    else if (hasOption(args, 'f', ['--force'])) flags.add('forced_delete');
  }
  if (program === 'find' && args.some((a) => a === '-delete' || a === 'rm')) flags.add('recursive_delete');
  if (program === 'git') {
    if (
      sub === 'push' &&
      (hasOption(args, 'f', ['--force', '--force-with-lease', '--mirror', '--delete']) ||
        args.some((a) => a.startsWith('--force') || /^\+/.test(a)))
    )
      flags.add('history_rewrite');
    if (sub === 'reset' && args.includes('--hard')) flags.add('history_rewrite');
    if (sub === 'rebase' || sub === 'filter-branch' || sub === 'filter-repo') flags.add('history_rewrite');
    if (sub === 'branch' && args.includes('-D')) flags.add('history_rewrite');
    if (sub === 'clean' && hasOption(args, 'f', ['--force'])) flags.add('recursive_delete');
    if (sub && /^(push|pull|fetch|clone|ls-remote)$/.test(sub)) {
      flags.add('network');
      hosts.push(...args.map(hostOf).filter((h): h is string => !!h));
    }
  }
  if (PRIVILEGE.has(program)) flags.add('privilege');
  if (program === 'chmod' && args.some(isWorldWritableMode)) flags.add('world_writable');
  if (program === 'eval') flags.add('eval');
  if (NETWORK.has(program)) {
    flags.add('network');
    hosts.push(...args.map(hostOf).filter((h): h is string => !!h));
    if (['ssh', 'nc', 'ncat', 'netcat', 'telnet', 'ping', 'dig', 'nslookup'].includes(program)) {
      const target = args.find((a) => !a.startsWith('-') && !hostOf(a));
      if (target && /^[\w.-]+$/.test(target)) hosts.push(target.toLowerCase());
    }
  }
  const installs = INSTALLS[program];
  if ((installs && sub && installs.test(sub)) || ['npx', 'pnpx', 'bunx'].includes(program))
    flags.add('package_install');
  if (
    DISK.has(program) ||
    program.startsWith('mkfs.') ||
    (program === 'dd' && args.some((a) => /^of=\/dev\/(?!null)/.test(a)))
  )
    flags.add('disk_overwrite');
  const outside = [...writes, ...writtenPaths(program, args)].filter((p) => isOutsideCwd(p, cwd));
  if (outside.length) flags.add('write_outside_cwd');
  const secrets = program === 'rm' ? [] : [...args, ...reads].filter((a) => isSecretPath(a));
  if (secrets.length) flags.add('secret_read');
  return { flags: [...flags], hosts: [...new Set(hosts)], outside, secrets };
}
