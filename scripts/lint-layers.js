// The layers rule (CONTRIBUTING.md, "The layers"), as a local ESLint plugin with two rules:
// - `layers/point-down`: an import from one room (a folder of src/, a file at the top of src/, channels/, bench/,
//   scripts/) may only name a room listed below its own in ROOMS. Every room of the checked trees must be listed, so
//   a new folder is placed on purpose. Listing each room, not only each layer, keeps rooms of one layer from importing
//   each other both ways.
// - `layers/no-cycle`: no two files import each other, directly or through others (within a room as well).
// Test files are not checked: a test may reach any layer.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The layers, bottom first; within a layer the rooms are in an order the imports follow (lower first). */
export const LAYERS = [
  { layer: 'base', rooms: ['src/version.ts', 'src/utils/', 'src/contracts/', 'src/api/'] },
  {
    layer: 'domain',
    rooms: [
      'src/summaries/',
      'src/requests/',
      'src/tokens/',
      'src/people/',
      'src/policy/',
      'src/signing/',
      'src/verify/',
      'src/audit/',
      'src/events/',
      'src/insights/',
      'src/lifecycle/',
      'src/scheduler/',
      'src/channel/',
      'src/push/',
      'src/history/',
      'src/telemetry/',
      'src/config.ts',
    ],
  },
  { layer: 'stores', rooms: ['src/stores/'] },
  { layer: 'gateway', rooms: ['src/gateway/'] },
  {
    layer: 'transports',
    rooms: [
      'src/client/',
      'src/hooks/',
      'src/http/',
      'channels/',
      'src/integrations/',
      'src/mcp/',
      'src/frameworks/',
      'src/agents/',
      'src/server/',
      'src/server.ts',
      'src/cli/',
      'src/index.ts',
      'scripts/',
      'bench/',
    ],
  },
];

const RANK = new Map();
const LAYER_OF = new Map();
for (const { layer, rooms } of LAYERS)
  for (const room of rooms) {
    RANK.set(room, RANK.size);
    LAYER_OF.set(room, layer);
  }

/** The room of a repository path, or null for what the rules do not check (tests, config files). */
export function roomOf(file) {
  const parts = relative(ROOT, file).split(sep);
  if (parts[0] === 'src') return parts.length === 2 ? `src/${parts[1]}` : `src/${parts[1]}/`;
  if (parts[0] === 'channels' || parts[0] === 'bench' || parts[0] === 'scripts') return `${parts[0]}/`;
  return null;
}

/** The file a relative import names (`./x.js` is `./x.ts` in the sources), or null. */
function resolveImport(from, spec) {
  if (!spec.startsWith('.')) return null;
  const target = resolve(dirname(from), spec);
  for (const candidate of [target, target.replace(/\.js$/, '.ts'), `${target}.ts`, join(target, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

const IMPORT_RE = /(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

let cycles;
/** Files that sit in an import cycle, each mapped to its cycle; the whole tree read once per lint run. */
function cycleMembers() {
  if (cycles) return cycles;
  const graph = new Map();
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|js)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
        const text = readFileSync(path, 'utf8');
        const out = new Set();
        for (const m of text.matchAll(IMPORT_RE)) {
          const target = resolveImport(path, m[1] ?? m[2]);
          if (target) out.add(target);
        }
        graph.set(path, out);
      }
    }
  };
  for (const top of ['src', 'channels', 'bench', 'scripts']) if (existsSync(join(ROOT, top))) walk(join(ROOT, top));
  // Tarjan's strongly connected components: a component of more than one file is a cycle.
  cycles = new Map();
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const visit = (v) => {
    index.set(v, index.size);
    low.set(v, index.get(v));
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) for (const f of component) cycles.set(f, component);
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

/** Calls `check(node, spec)` for every import, export-from and literal dynamic import of a file. */
function importVisitors(check) {
  const fromSource = (node) => {
    if (node.source && typeof node.source.value === 'string') check(node.source, node.source.value);
  };
  return {
    ImportDeclaration: fromSource,
    ExportNamedDeclaration: fromSource,
    ExportAllDeclaration: fromSource,
    ImportExpression: (node) => {
      if (node.source.type === 'Literal' && typeof node.source.value === 'string')
        check(node.source, node.source.value);
    },
  };
}

const pointDown = {
  meta: {
    type: 'problem',
    docs: { description: 'imports point down the layers (CONTRIBUTING.md, "The layers")' },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    const from = roomOf(file);
    if (!from) return {};
    if (!RANK.has(from)) {
      return {
        Program: (node) =>
          context.report({
            node,
            message: `${from} is not in the layer list (scripts/lint-layers.js): place the new room in its layer`,
          }),
      };
    }
    return importVisitors((node, spec) => {
      const target = resolveImport(file, spec);
      const to = target && roomOf(target);
      if (!to || to === from || !RANK.has(to)) return;
      if (RANK.get(to) > RANK.get(from)) {
        context.report({
          node,
          message: `${from} (${LAYER_OF.get(from)}) imports ${to} (${LAYER_OF.get(to)}), which is above it: move the shared piece down, or pass a callback`,
        });
      }
    });
  },
};

const noCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'no two files import each other, directly or through others' },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    if (!roomOf(file)) return {};
    const cycle = cycleMembers().get(file);
    if (!cycle) return {};
    const members = new Set(cycle);
    return importVisitors((node, spec) => {
      const target = resolveImport(file, spec);
      if (target && members.has(target)) {
        context.report({
          node,
          message: `import cycle: ${cycle.map((f) => relative(ROOT, f)).join(' → ')}; move what both need into a third file`,
        });
      }
    });
  },
};

/** The plugin as eslint.config.js registers it. */
export default { rules: { 'point-down': pointDown, 'no-cycle': noCycle } };
