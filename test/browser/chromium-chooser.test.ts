/**
 * Which Chromium the browser tests run: CHROMIUM_PATH, else a system Chromium, else the one inside the
 * `@sparticuz/chromium` npm package — and that last one really starts here and renders a page, so `npm test` needs
 * nothing outside npm.
 */
import { describe, expect, it } from 'vitest';
import { chooseChromium, defaultLookup, launchChromium, type ChromiumLookup } from './chromium.js';

const BUNDLED = {
  executablePath: '/tmp/chromium',
  args: ['--no-sandbox', '--disable-web-security', "--headless='shell'", '--single-process', '--use-gl=angle'],
};

const lookup = (env: Record<string, string>, files: string[]): ChromiumLookup & { bundledCalls: number } => {
  const l = {
    env,
    bundledCalls: 0,
    exists: (path: string) => files.includes(path),
    async bundled() {
      l.bundledCalls++;
      return BUNDLED;
    },
  };
  return l;
};

describe('chooseChromium', () => {
  it('takes CHROMIUM_PATH first, and refuses one that does not exist', async () => {
    const l = lookup({ CHROMIUM_PATH: '/opt/chrome/chrome' }, ['/opt/chrome/chrome', '/usr/bin/chromium']);
    expect(await chooseChromium(l)).toMatchObject({ executablePath: '/opt/chrome/chrome', source: 'CHROMIUM_PATH' });
    await expect(chooseChromium(lookup({ CHROMIUM_PATH: '/nowhere' }, ['/usr/bin/chromium']))).rejects.toThrow(
      'CHROMIUM_PATH is /nowhere',
    );
    expect(l.bundledCalls).toBe(0);
  });

  it('prefers a system Chromium over the npm-packaged one', async () => {
    const l = lookup({}, ['/usr/bin/chromium-browser']);
    expect(await chooseChromium(l)).toMatchObject({ executablePath: '/usr/bin/chromium-browser', source: 'system' });
    expect(l.bundledCalls).toBe(0);
  });

  it('falls back to @sparticuz/chromium without its flags that would weaken the pages under test', async () => {
    const choice = await chooseChromium(lookup({}, []));
    expect(choice).toMatchObject({ executablePath: '/tmp/chromium', source: '@sparticuz/chromium' });
    expect(choice.args).toContain('--use-gl=angle');
    expect(choice.args).toContain('--no-sandbox');
    for (const dropped of ['--disable-web-security', "--headless='shell'", '--single-process'])
      expect(choice.args).not.toContain(dropped);
  });

  it('the npm-packaged Chromium starts and renders a page', async () => {
    const choice = await chooseChromium({ ...defaultLookup, env: {}, exists: () => false });
    expect(choice.source).toBe('@sparticuz/chromium');
    const browser = await launchChromium({ choice });
    try {
      const page = await browser.context.newPage();
      await page.setContent('<h1 id="t">tollgate</h1>');
      expect(await page.textContent('#t')).toBe('tollgate');
    } finally {
      await browser.close();
    }
  }, 60_000);
});
