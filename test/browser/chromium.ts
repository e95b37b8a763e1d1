/**
 * Real headless Chromium for the browser tests, driven by playwright-core with a fresh profile per launch and the flags
 * a closed network needs. Which browser: `CHROMIUM_PATH` when set, else a system Chromium (Debian's package), else the
 * binary inside the `@sparticuz/chromium` npm package — so `npm test` finds a browser with nothing outside npm. That one
 * is a headless shell, which refuses every notification whatever permission is granted: the push notification test
 * needs a system Chromium (`apt-get install chromium`, as `.ci/run` does) and says so when it has the other. Never
 * downloads.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Where system packages put Chromium, in the order tried. */
export const SYSTEM_CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Flags of `@sparticuz/chromium` (built for AWS Lambda) the tests must not take: they switch off the same-origin
 * policy and mixed-content blocking the pages' security is tested under, or fight playwright's own process model.
 */
const UNWANTED_BUNDLED_FLAGS =
  /^--(disable-web-security|allow-running-insecure-content|headless|single-process|disable-site-isolation-trials)/;

/** The browser chosen, and why (shown when a launch fails). */
export interface ChromiumChoice {
  executablePath: string;
  args: string[];
  source: 'CHROMIUM_PATH' | 'system' | '@sparticuz/chromium';
}

/** What {@link chooseChromium} looks at (replaceable in its unit test). */
export interface ChromiumLookup {
  env: Record<string, string | undefined>;
  exists(path: string): boolean;
  /** The npm-packaged browser: unpacks it (once) and answers its path and flags. */
  bundled(): Promise<{ executablePath: string; args: string[] }>;
}

/** The real environment, file system and npm package. */
export const defaultLookup: ChromiumLookup = {
  env: process.env,
  exists: existsSync,
  async bundled() {
    const { default: packaged } = await import('@sparticuz/chromium');
    return { executablePath: await packaged.executablePath(), args: packaged.args };
  },
};

/** Picks the browser: `CHROMIUM_PATH` (must exist), else a system Chromium, else `@sparticuz/chromium`. */
export async function chooseChromium(lookup: ChromiumLookup = defaultLookup): Promise<ChromiumChoice> {
  const override = lookup.env.CHROMIUM_PATH;
  if (override) {
    if (!lookup.exists(override)) throw new Error(`CHROMIUM_PATH is ${override}, but there is no file there`);
    return { executablePath: override, args: FLAGS, source: 'CHROMIUM_PATH' };
  }
  const system = SYSTEM_CHROMIUM.find((path) => lookup.exists(path));
  if (system) return { executablePath: system, args: FLAGS, source: 'system' };
  const bundled = await lookup.bundled();
  const args = [...new Set([...bundled.args.filter((a) => !UNWANTED_BUNDLED_FLAGS.test(a)), ...FLAGS])];
  return { executablePath: bundled.executablePath, args, source: '@sparticuz/chromium' };
}

/** A browser with its own fresh profile; `close()` removes the profile. */
export interface TestBrowser {
  context: BrowserContext;
  /** Which browser this is, and why it was chosen. */
  choice: ChromiumChoice;
  close(): Promise<void>;
}

/** Launches Chromium with a fresh user-data dir. */
export async function launchChromium(
  options: { viewport?: { width: number; height: number }; choice?: ChromiumChoice } = {},
): Promise<TestBrowser> {
  const choice = options.choice ?? (await chooseChromium());
  const profile = mkdtempSync(join(tmpdir(), 'tollgate-chromium-'));
  const context = await chromium
    .launchPersistentContext(profile, {
      executablePath: choice.executablePath,
      headless: true,
      args: choice.args,
      viewport: options.viewport ?? { width: 1100, height: 760 },
      acceptDownloads: false,
      offline: false,
      // Under LANG=C Chromium's locale is "en-US@posix", which Intl refuses: uPlot's number format then throws.
      locale: 'en-US',
    })
    .catch((error: unknown) => {
      rmSync(profile, { recursive: true, force: true });
      throw new Error(`Chromium from ${choice.source} (${choice.executablePath}) did not start: ${String(error)}`);
    });
  return {
    context,
    choice,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
