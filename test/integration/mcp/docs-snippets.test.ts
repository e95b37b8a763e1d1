/**
 * The client configurations in docs/mcp.md parse, have each client's documented shape (Claude Desktop and Cursor:
 * `mcpServers` with command/args/env; VS Code: `servers` with `type: "stdio"`), and their `tollgate mcp` arguments
 * are ones the CLI accepts: a name, and an upstream command after `--` or `--upstream-url`.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../../src/cli/args.js';
import { MCP_ARGS } from '../../../src/cli/mcp.js';

const DOC = readFileSync(fileURLToPath(new URL('../../../docs/mcp.md', import.meta.url)), 'utf8');
/** Each ```json block with the heading it sits under. */
const snippets = [...DOC.matchAll(/^### (.+)\n[\s\S]*?```json\n([\s\S]*?)```/gm)].map((m) => ({
  heading: m[1]!,
  config: JSON.parse(m[2]!) as Record<string, unknown>,
}));

interface Entry {
  type?: string;
  command: string;
  args: string[];
  env: Record<string, string>;
}

describe('docs/mcp.md client configurations', () => {
  it('has one for each client', () => {
    expect(snippets.map((s) => s.heading)).toEqual([
      'Claude Desktop',
      'Cursor',
      'VS Code',
      'A remote (Streamable HTTP) server',
    ]);
  });

  it.each(snippets)('$heading: the documented shape and arguments tollgate mcp accepts', ({ heading, config }) => {
    const key = heading === 'VS Code' ? 'servers' : 'mcpServers';
    expect(Object.keys(config).filter((k) => k !== 'inputs')).toEqual([key]);
    for (const [name, entry] of Object.entries(config[key] as Record<string, Entry>)) {
      if (heading === 'VS Code') expect(entry.type).toBe('stdio');
      expect(entry.command).toBe('npx');
      expect(entry.args.slice(0, 3)).toEqual(['-y', 'tollgate', 'mcp']);
      expect(Object.keys(entry.env).sort()).toEqual(['TOLLGATE_TOKEN', 'TOLLGATE_URL']);
      const args = parseArgs(entry.args.slice(3), MCP_ARGS);
      expect(args.flags.name).toEqual([name]);
      if (args.flags['upstream-url']) expect(args.positionals).toEqual([]);
      else expect(args.positionals.length).toBeGreaterThan(0);
    }
  });
});
