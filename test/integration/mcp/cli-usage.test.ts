/**
 * `tollgate mcp` refuses a command line it cannot run with exit 2 and a message naming the flag, before starting
 * anything.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../integrations/helpers.js';

const env = { TOLLGATE_URL: 'http://127.0.0.1:9', TOLLGATE_TOKEN: 't' };

describe('tollgate mcp usage errors', () => {
  it.each([
    ['no upstream', [], /no upstream: put its command after "--"/],
    ['a URL without --name', ['--upstream-url', 'http://127.0.0.1:9/mcp'], /--name is required with --upstream-url/],
    [
      'a URL that is not http(s)',
      ['--name', 'x', '--upstream-url', 'ftp://example.com/mcp'],
      /--upstream-url must be an http:\/\/ or https:\/\/ URL/,
    ],
    [
      'both a URL and a command',
      ['--name', 'x', '--upstream-url', 'http://127.0.0.1:9/mcp', '--', 'node'],
      /either --upstream-url or a command/,
    ],
    [
      'a malformed header',
      ['--name', 'x', '--upstream-url', 'http://127.0.0.1:9/mcp', '--header', 'novalue'],
      /--header must look like "Name: value"/,
    ],
    ['a header for a stdio upstream', ['--header', 'A: b', '--', 'node'], /--header applies to --upstream-url only/],
    ['a bad name', ['--name', 'a.b', '--', 'node'], /--name must be letters, digits/],
  ])(
    '%s',
    async (_name, args, message) => {
      const result = await runCli(['mcp', ...args], { env });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(message);
    },
    30_000,
  );
});
