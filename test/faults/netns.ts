/**
 * Hosts for the fault suite: each a Linux network namespace joined to this one by a veth pair, so a replica inside
 * reaches PostgreSQL, Redis and its clients only across a link the suite can cut. Needs root and `ip netns`; every
 * name and address is the suite's own (10.77.<n>.0/24), and everything is removed again by {@link FaultHost.destroy}.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';

/** Why the suite cannot run here, or null when it can. */
export function netnsUnavailable(): string | null {
  if (process.platform !== 'linux') return 'network namespaces need Linux';
  if (process.getuid?.() !== 0) return 'network namespaces need root';
  try {
    execFileSync('ip', ['netns', 'list'], { stdio: 'ignore' });
  } catch {
    return '`ip netns` is not available (iproute2)';
  }
  return null;
}

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });

/** One host: a namespace with an address on its own link to this namespace. */
export class FaultHost {
  private constructor(
    readonly name: string,
    /** This namespace's end of the link, as the host inside sees it (where the forwarders listen). */
    readonly gateway: string,
    /** The host's own address. */
    readonly address: string,
  ) {}

  /** Creates namespace `tgf<tag>` with link 10.77.<n>.1 (here) ↔ 10.77.<n>.2 (inside). */
  static create(tag: string, n: number): FaultHost {
    const name = `tgf${tag}`;
    const outside = `tgfo${tag}`;
    const inside = `tgfi${tag}`;
    FaultHost.remove(name, outside);
    ip('netns', 'add', name);
    ip('link', 'add', outside, 'type', 'veth', 'peer', 'name', inside);
    ip('link', 'set', inside, 'netns', name);
    ip('addr', 'add', `10.77.${n}.1/24`, 'dev', outside);
    ip('link', 'set', outside, 'up');
    ip('netns', 'exec', name, 'ip', 'addr', 'add', `10.77.${n}.2/24`, 'dev', inside);
    ip('netns', 'exec', name, 'ip', 'link', 'set', inside, 'up');
    ip('netns', 'exec', name, 'ip', 'link', 'set', 'lo', 'up');
    return new FaultHost(name, `10.77.${n}.1`, `10.77.${n}.2`);
  }

  /** Runs `command` inside the namespace. */
  spawn(command: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
    return spawn('ip', ['netns', 'exec', this.name, command, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  }

  /** kill -9 of every process in the namespace: the host vanishes with its connections half-open. */
  killAll(): void {
    const pids = execFileSync('ip', ['netns', 'pids', this.name]).toString().split('\n').filter(Boolean);
    for (const pid of pids) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }

  destroy(): void {
    this.killAll();
    FaultHost.remove(this.name, `tgfo${this.name.slice(3)}`);
  }

  private static remove(name: string, outside: string): void {
    try {
      ip('netns', 'del', name);
    } catch {
      // not there
    }
    try {
      ip('link', 'del', outside);
    } catch {
      // went with the namespace
    }
  }
}
