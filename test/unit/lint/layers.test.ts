// The layers rule (scripts/lint-layers.js) refuses an import that runs up a layer and a room nobody placed.
import { Linter } from 'eslint';
import { resolve } from 'node:path';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain JavaScript ESLint plugin without types
import layers, { LAYERS, roomOf } from '../../../scripts/lint-layers.js';

const root = resolve(import.meta.dirname, '../../..');

function lint(file: string, code: string): string[] {
  const linter = new Linter({ configType: 'flat' });
  const messages = linter.verify(
    code,
    [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tseslint.parser },
        plugins: { layers },
        rules: { 'layers/point-down': 'error' },
      },
    ],
    { filename: resolve(root, file) },
  );
  return messages.map((m) => m.message);
}

describe('layers/point-down', () => {
  it('refuses a store contract importing the gateway, naming both rooms and layers', () => {
    const messages = lint(
      'src/requests/new-file.ts',
      "import { Gateway } from '../gateway/gateway.js';\nexport const g = Gateway;\n",
    );
    expect(messages).toEqual([
      expect.stringContaining('src/requests/ (domain) imports src/gateway/ (gateway), which is above it'),
    ]);
  });

  it('refuses a dynamic import and an export-from that run up', () => {
    const messages = lint(
      'src/stores/new-file.ts',
      "export { Gateway } from '../gateway/gateway.js';\nexport const h = () => import('../http/app.js');\n",
    );
    expect(messages).toHaveLength(2);
  });

  it('refuses one domain room importing another listed above it, so two rooms of a layer never import each other both ways', () => {
    expect(lint('src/requests/new-file.ts', "export { PeopleSource } from '../people/source.js';\n")).toHaveLength(1);
    expect(
      lint('src/people/new-file.ts', "export type { ConfirmationRequest } from '../requests/types.js';\n"),
    ).toEqual([]);
  });

  it('lets the gateway import a store and a transport import the gateway', () => {
    expect(lint('src/gateway/new-file.ts', "export { openStores } from '../stores/open-store.js';\n")).toEqual([]);
    expect(lint('src/http/new-file.ts', "export { Gateway } from '../gateway/gateway.js';\n")).toEqual([]);
  });

  it('asks for a new room to be placed in the list', () => {
    expect(lint('src/newroom/file.ts', 'export const x = 1;\n')).toEqual([
      expect.stringContaining('src/newroom/ is not in the layer list'),
    ]);
  });

  it('lists every room of src/ once, and leaves tests out', () => {
    const rooms = (LAYERS as { rooms: string[] }[]).flatMap((l) => l.rooms);
    expect(new Set(rooms).size).toBe(rooms.length);
    expect(roomOf(resolve(root, 'test/unit/x.test.ts'))).toBeNull();
    expect(roomOf(resolve(root, 'src/server.ts'))).toBe('src/server.ts');
    expect(roomOf(resolve(root, 'src/stores/sqlite/store.ts'))).toBe('src/stores/');
  });
});
