/**
 * The python3 the tests run: the first on PATH that is an interpreter, not a version manager's shim. A pyenv shim
 * (`~/.pyenv/shims/python3`) is a bash script that runs `pyenv exec`, which runs more bash before Python: measured
 * with farm-bench on a 2-core machine, 0.78 s of CPU a start against 0.06 s for /usr/bin/python3, and the Python
 * example tests start it a few dozen times. `TOLLGATE_TEST_PYTHON` names another; with no interpreter but a shim, the
 * shim.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

function findPython(): string {
  if (process.env.TOLLGATE_TEST_PYTHON) return process.env.TOLLGATE_TEST_PYTHON;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir || /[\\/]shims$/.test(dir)) continue;
    const candidate = join(dir, 'python3');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return 'python3';
}

/** The path of the python3 to run (see the module). */
export const PYTHON3 = findPython();
