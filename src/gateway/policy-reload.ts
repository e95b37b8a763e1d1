/**
 * @module gateway/policy-reload
 * Reloads the approval policy and the people directory from the config file on SIGHUP or when the file changes. Both
 * come from the same file and are put in force together; a file that does not load (or whose rules name people the
 * directory lacks) keeps both as they were and logs why. Requests already filed keep the routing they got.
 */
import { unwatchFile, watchFile } from 'node:fs';
import type { Logger } from 'pino';
import { loadPolicyAndPeople, readConfigFile } from '../config.js';
import { describeError } from '../api/errors.js';
import { directoryChanges } from '../people/changes.js';
import type { PeopleSource } from '../people/source.js';
import type { PolicyGate } from '../policy/gate.js';

/** Options of {@link watchPolicy}. */
export interface WatchPolicyOptions {
  gate: PolicyGate;
  /** The people directory in force, replaced with the file's `people:` and `groups:`. */
  people?: PeopleSource;
  /** The YAML config file the policy comes from. */
  path: string;
  logger: Pick<Logger, 'info' | 'error'>;
  /** How often the file's modification time is checked, in ms (default 2000; 0: SIGHUP only). */
  pollMs?: number;
}

/**
 * Reads `path` again and puts its policy in force. Returns true when it did, false (logged, old rules kept) when
 * the file does not load.
 */
export function reloadPolicy(options: Pick<WatchPolicyOptions, 'gate' | 'people' | 'path' | 'logger'>): boolean {
  try {
    const { policy, directory } = loadPolicyAndPeople(readConfigFile(options.path), options.path);
    options.gate.replace(policy);
    if (options.people) {
      // Who may approve is part of the audit trail: every change to it is logged as it takes effect.
      const changes = directoryChanges(options.people.configured(), directory);
      options.people.replace(directory);
      if (changes.length) options.logger.info({ path: options.path, changes }, 'people directory changed');
    }
    options.logger.info(
      {
        path: options.path,
        rules: policy.rules.length,
        people: directory.people().length,
        groups: directory.groups().length,
      },
      'policy reloaded',
    );
    return true;
  } catch (error) {
    options.logger.error(
      { path: options.path, err: describeError(error) },
      'policy not reloaded; the rules in force stay',
    );
    return false;
  }
}

/** Reloads on SIGHUP and on file changes until the returned function is called. */
export function watchPolicy(options: WatchPolicyOptions): () => void {
  const reload = () => void reloadPolicy(options);
  process.on('SIGHUP', reload);
  const pollMs = options.pollMs ?? 2000;
  const onChange = (now: { mtimeMs: number }, before: { mtimeMs: number }) => {
    if (now.mtimeMs !== before.mtimeMs) reload();
  };
  if (pollMs > 0) watchFile(options.path, { interval: pollMs, persistent: false }, onChange);
  return () => {
    process.off('SIGHUP', reload);
    if (pollMs > 0) unwatchFile(options.path, onChange);
  };
}
