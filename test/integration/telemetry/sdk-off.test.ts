// A gateway without OTEL_* variables never loads the OpenTelemetry SDK: a fresh node process builds, serves and closes
// a gateway with a module resolve hook logging every module it loads, and neither the SDK nor the exporter is among
// them (nor loaded by the flag's account). The same process with `OTEL_TRACES_EXPORTER` set proves the hook sees them.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../helpers/built-package.js';
import { tracesExporters, tracesUrl } from '../../../src/telemetry/sdk.js';

const SDK_MODULES =
  /\/node_modules\/@opentelemetry\/(sdk-trace-node|sdk-trace-base|exporter-trace-otlp-http|resources)\//;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tollgate-otel-off-'));
  writeFileSync(
    join(dir, 'log-hooks.mjs'),
    "import { appendFileSync } from 'node:fs';\nexport async function resolve(specifier, context, next) {\n  const result = await next(specifier, context);\n  appendFileSync(process.env.RESOLVE_LOG, result.url + '\\n');\n  return result;\n}\n",
  );
  writeFileSync(
    join(dir, 'register.mjs'),
    "import { register } from 'node:module';\nregister('./log-hooks.mjs', import.meta.url);\n",
  );
  const src = (path: string) => pathToFileURL(join(ROOT, 'src', path)).href;
  writeFileSync(
    join(dir, 'serve-once.mts'),
    [
      `const { loadConfig } = await import('${src('config.ts')}');`,
      `const { createServer } = await import('${src('server.ts')}');`,
      `const { tracingSdkLoaded } = await import('${src('telemetry/sdk.ts')}');`,
      `const env = { TOLLGATE_API_TOKENS: 't', LOG_LEVEL: 'silent', ...JSON.parse(process.env.GATEWAY_ENV) };`,
      `const server = await createServer({ config: loadConfig({ port: 0, db: process.env.GATEWAY_DB }, env) });`,
      `await server.listen();`,
      `await server.close();`,
      `console.log(JSON.stringify({ loaded: tracingSdkLoaded() }));`,
    ].join('\n'),
  );
});
afterAll(() => dir && rmSync(dir, { recursive: true, force: true }));

/** Serves and closes a gateway with `env` as its configuration's environment; what it said and the modules it loaded. */
function serveOnce(name: string, env: Record<string, string>): { loaded: boolean; modules: string[] } {
  const log = join(dir, `${name}.log`);
  writeFileSync(log, '');
  // Nothing of the test runner's own environment may turn tracing on.
  const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('OTEL_')));
  const stdout = execFileSync(
    process.execPath,
    ['--import', 'tsx', '--import', pathToFileURL(join(dir, 'register.mjs')).href, join(dir, 'serve-once.mts')],
    {
      cwd: ROOT,
      env: { ...base, RESOLVE_LOG: log, GATEWAY_ENV: JSON.stringify(env), GATEWAY_DB: join(dir, `${name}.db`) },
      encoding: 'utf8',
    },
  );
  const { loaded } = JSON.parse(stdout.trim().split('\n').at(-1)!) as { loaded: boolean };
  return { loaded, modules: readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

describe('the OpenTelemetry SDK is loaded only when OTEL_* variables ask for traces', () => {
  it('is not loaded without them (nor the API, by tollgate: its spans wait for something registered with it)', () => {
    const { loaded, modules } = serveOnce('off', {});
    expect(loaded).toBe(false);
    expect(modules.filter((url) => SDK_MODULES.test(url))).toEqual([]);
    // The hook sees tollgate's tracing code load; the API itself is left to whatever registers with it (prom-client's
    // default metrics require it too, out of this hook's sight).
    expect(modules.some((url) => url.endsWith('/src/telemetry/tracing.ts'))).toBe(true);
    expect(modules.some((url) => url.includes('/node_modules/@opentelemetry/api/'))).toBe(false);
  }, 60_000);

  it('is loaded with them (so the hook above would have seen it)', () => {
    const { loaded, modules } = serveOnce('on', { OTEL_TRACES_EXPORTER: 'console' });
    expect(loaded).toBe(true);
    expect(modules.some((url) => url.includes('/node_modules/@opentelemetry/sdk-trace-node/'))).toBe(true);
  }, 60_000);

  it('reads the standard variables: which exporters, and the traces URL', () => {
    expect(tracesExporters({})).toEqual([]);
    expect(tracesExporters({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual(['otlp']);
    expect(tracesExporters({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toEqual([
      'otlp',
    ]);
    expect(tracesExporters({ OTEL_TRACES_EXPORTER: 'otlp, console' })).toEqual(['otlp', 'console']);
    expect(
      tracesExporters({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }),
    ).toEqual([]);
    expect(
      tracesExporters({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }),
    ).toEqual([]);
    expect(tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toBe(
      'http://collector:4318/v1/traces',
    );
    expect(
      tracesUrl({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:9999/traces',
      }),
    ).toBe('http://b:9999/traces');
    expect(tracesUrl({})).toBeUndefined();
  });
});
