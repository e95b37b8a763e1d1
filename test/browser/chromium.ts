/**
 * Real headless Chromium for the browser tests: Debian's `chromium` package driven by playwright-core, a fresh
 * profile per launch, and the flags a closed network needs. Never downloads a browser; a missing one fails loudly.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Where Debian's chromium package puts the browser. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** A browser with its own fresh profile; `close()` removes the profile. */
export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Launches Chromium with a fresh user-data dir, or fails with what to install. */
export async function launchChromium(options: { viewport?: { width: number; height: number } } = {}): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Browser tests need Chromium at ${CHROMIUM}: install Debian's package (apt-get install -y chromium) or set CHROMIUM_PATH. They never download a browser.`);
  }
  const profile = mkdtempSync(join(tmpdir(), 'tollgate-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: options.viewport ?? { width: 1100, height: 760 },
    acceptDownloads: false,
    offline: false,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
