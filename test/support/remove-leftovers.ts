/**
 * A vitest setup file: after each test file (after its own `afterAll` hooks, which may stop the processes that wrote),
 * removes what it registered with `removeAtEnd` and did not remove itself (leftovers.ts). Registered first, so it
 * runs last; it imports nothing heavy, so files that register nothing pay nothing.
 */
import { afterAll } from 'vitest';
import { removeLeftovers } from './leftovers.js';

afterAll(removeLeftovers, 60_000);
