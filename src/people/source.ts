/**
 * @module people/source
 * The directory in force. The gateway reads it at each decision through `current`, so a reload of the config file
 * (SIGHUP or a change of the file, `gateway/policy-reload.ts`) swaps it for every later decision at once; a request already
 * filed keeps its approver references and is judged against the directory of the moment it is decided. Accounts
 * learned from emails (`email-resolution.ts`) are laid over the configured ones; a configured account always wins.
 */
import { MemoryDirectory } from './memory-directory.js';
import type { Directory } from './types.js';

/** Accounts learned per person: channel → account, and channel → why not. */
export type Learned = Map<string, { accounts: Record<string, string>; unresolved: Record<string, string> }>;

/** Holds the directory in force and swaps it on reload. */
export class PeopleSource {
  private merged: Directory;
  private learned: Learned = new Map();
  private readonly listeners = new Set<() => void>();

  constructor(private directory: Directory) {
    this.merged = directory;
  }

  /** The directory in force (bound: pass it as the gateway's `directory` option). */
  readonly current = (): Directory => this.merged;

  /** The directory as the config file states it, without learned accounts. */
  configured(): Directory {
    return this.directory;
  }

  /** Puts `directory` in force for every decision from now on, keeping what was learned for people still in it. */
  replace(directory: Directory): void {
    this.directory = directory;
    this.merged = withLearned(directory, this.learned);
    for (const listener of this.listeners) listener();
  }

  /** Lays accounts learned from emails over the configured directory. */
  learn(learned: Learned): void {
    this.learned = learned;
    this.merged = withLearned(this.directory, learned);
  }

  /** Calls `listener` after every {@link replace}; returns the unsubscribe function. */
  onReplace(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/**
 * `directory` with learned accounts added. An account some other person already has in the config is not taken (the
 * config is the source): that person keeps it, and the learner's entry says why.
 */
function withLearned(directory: Directory, learned: Learned): Directory {
  if (!learned.size || !directory.people().length) return directory;
  const people = directory.people().map((person) => {
    const found = learned.get(person.id);
    if (!found) return person;
    const accounts = { ...person.accounts };
    const unresolved = { ...found.unresolved };
    for (const [channel, account] of Object.entries(found.accounts)) {
      const owner = directory.personOf(`${channel}:${account}`);
      if (owner !== `${channel}:${account}` && owner !== person.id)
        unresolved[channel] = `${account} is ${owner}'s account in the config`;
      else accounts[channel] ??= account;
    }
    return { ...person, accounts, unresolved };
  });
  return new MemoryDirectory(people, new Map(directory.groups().map((g) => [g.id, g.members])));
}
