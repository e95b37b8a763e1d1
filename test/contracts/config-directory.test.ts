/**
 * The directory contract, run against the directory the config file's `people:` and `groups:` build.
 */
import { loadDirectory } from '../../src/people/config.js';
import { runDirectoryContract } from './directory.contract.js';

runDirectoryContract('config file', (sections) => loadDirectory(sections, 'tollgate.yaml'));
