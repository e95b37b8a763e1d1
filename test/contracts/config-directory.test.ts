/**
 * The directory contract, run against the directory the config file's `people:` and `groups:` build.
 */
import { loadDirectory } from '../../src/people/config.js';
import { PeopleSource } from '../../src/people/source.js';
import { runDirectoryContract } from './directory.contract.js';

runDirectoryContract('config file', (sections) => loadDirectory(sections, 'tollgate.yaml'));

// The directory in force once accounts were learned from emails: the same contract holds over the merged one.
runDirectoryContract('config file with accounts learned from emails', (sections) => {
  const source = new PeopleSource(loadDirectory(sections, 'tollgate.yaml'));
  source.learn(new Map([['bob', { accounts: { slack: 'U0BOB' }, unresolved: {} }]]));
  return source.current();
});
