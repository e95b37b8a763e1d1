// The framework adapters are client-side: they import GateClient and their own framework, never the server, express,
// a DB driver, BullMQ or a chat SDK — and only the entry point a user imports loads a framework.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../../src/frameworks');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

function importsOf(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/^\s*(?:import|export)\b[^'"]*from\s+'([^']+)'/gm)].map(
    (m) => m[1] ?? '',
  );
}

const allowed: Record<string, string[]> = {
  'gate.ts': ['../client/index.js'],
  'ai-sdk': ['../gate.js', './approvals.js'],
  langgraph: ['@langchain/langgraph', '../gate.js', './interrupts.js'],
  'openai-agents': ['@openai/agents', '../../client/index.js', '../gate.js', './approvals.js'],
};

describe('src/frameworks imports', () => {
  it('each file imports only the client, the shared gate helper and its own framework', () => {
    const files = sources(root);
    expect(files.length).toBeGreaterThanOrEqual(7);
    for (const file of files) {
      const area = relative(root, file).split('/')[0] ?? '';
      const ok = allowed[area];
      expect(ok, `no import rule for ${area}`).toBeDefined();
      for (const specifier of importsOf(file))
        expect(ok, `${relative(root, file)} imports ${specifier}`).toContain(specifier);
    }
  });
});
