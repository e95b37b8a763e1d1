/**
 * Every route registered on an express 5 app, as "METHOD /full/path" (express path syntax, `:id`): for the tests that
 * check a table or a document against what the app really serves.
 */
import type { Express } from 'express';

/** The parts of express 5's router read here: layers with their raw paths, routes, nested routers. */
interface Layer {
  rawPath?: string | string[];
  route?: { path: string; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
}

/** Every route registered on `app`, sorted. */
export function registeredRoutes(app: Express): string[] {
  const found = new Set<string>();
  const join = (a: string, b: string) => `${a}/${b}`.replace(/\/+/g, '/').replace(/(.)\/$/, '$1');
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        for (const method of Object.keys(layer.route.methods).filter((m) => m !== '_all'))
          found.add(`${method.toUpperCase()} ${join(prefix, layer.route.path)}`);
      } else if (layer.handle.stack) {
        const raw = Array.isArray(layer.rawPath) ? layer.rawPath : [layer.rawPath ?? '/'];
        for (const path of raw) walk(layer.handle.stack, join(prefix, path));
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  return [...found].sort();
}
