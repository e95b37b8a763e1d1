/**
 * @module people/source
 * The directory in force. The gateway reads it at each decision through `current`, so a reload of the config file
 * (SIGHUP or a change of the file, `policy/reload.ts`) swaps it for every later decision at once; a request already
 * filed keeps its approver references and is judged against the directory of the moment it is decided.
 */
import type { Directory } from './types.js';

/** Holds the directory in force and swaps it on reload. */
export class PeopleSource {
  constructor(private directory: Directory) {}

  /** The directory in force (bound: pass it as the gateway's `directory` option). */
  readonly current = (): Directory => this.directory;

  /** Puts `directory` in force for every decision from now on. */
  replace(directory: Directory): void {
    this.directory = directory;
  }
}
