// Chromium for the end-to-end suites, from the registry: @sparticuz/chromium ships a headless-shell build,
// brotli-compressed, with the libraries it needs beyond glibc (NSS, NSPR, expat). The first launch unpacks
// it into node_modules/.cache (about 3 s, once a version); later launches reuse it. Driven by
// playwright-core. A missing browser is a failure, never a skip. CHROMIUM_PATH runs another build instead.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const SCREENSHOT_DIR = join(process.cwd(), 'test-results', 'e2e');

interface ChromiumBuild {
  executable: string;
  /** Directory of the shared libraries the build brings, for LD_LIBRARY_PATH (unset for CHROMIUM_PATH). */
  lib?: string;
}

/** The registry's Chromium, unpacked once into node_modules/.cache/rebound-chromium-<version>. */
function registryChromium(): ChromiumBuild {
  let pkgDir: string;
  try {
    pkgDir = join(dirname(createRequire(import.meta.url).resolve('@sparticuz/chromium')), '..');
  } catch (error) {
    throw new Error(`Chromium not installed (@sparticuz/chromium): run \`npm install\` — the browser tests need a real browser (${String(error)})`);
  }
  const { version } = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { version: string };
  const dir = join(pkgDir, '..', '..', '.cache', `rebound-chromium-${version}`);
  const build = { executable: join(dir, 'chromium'), lib: join(dir, 'lib') };
  if (existsSync(build.executable)) return build;
  // Unpacked beside, then renamed: a suite launching in parallel never sees half a browser.
  mkdirSync(dirname(dir), { recursive: true });
  const partial = mkdtempSync(`${dir}.partial-`);
  const unpack = (name: string) => brotliDecompressSync(readFileSync(join(pkgDir, 'bin', name)));
  writeFileSync(join(partial, 'chromium'), unpack('chromium.br'));
  chmodSync(join(partial, 'chromium'), 0o755);
  const tar = spawnSync('tar', ['-x', '-C', partial], { input: unpack('al2023.tar.br') }); // lib/*.so
  if (tar.status !== 0) throw new Error(`unpacking Chromium's libraries failed: ${String(tar.stderr || tar.error)}`);
  try {
    renameSync(partial, dir);
  } catch {
    rmSync(partial, { recursive: true, force: true }); // another suite's copy won
  }
  return build;
}

function chromiumBuild(): ChromiumBuild {
  const path = process.env.CHROMIUM_PATH;
  if (path === undefined) return registryChromium();
  if (!existsSync(path)) throw new Error(`CHROMIUM_PATH=${path} does not exist: unset it to use the registry's Chromium (@sparticuz/chromium)`);
  return { executable: path };
}

export interface BrowserSession {
  browser: Browser;
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<BrowserSession> {
  const build = chromiumBuild();
  // A fresh profile per run: no cached assets, storage or first-run state leak between runs.
  const userDataDir = mkdtempSync(join(tmpdir(), 'rebound-e2e-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: build.executable,
    ...(build.lib ? { env: { ...process.env, LD_LIBRARY_PATH: [build.lib, process.env.LD_LIBRARY_PATH].filter(Boolean).join(':') } } : {}),
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
    viewport: { width: 1100, height: 800 },
  });
  const browser = context.browser();
  return {
    browser: browser as Browser,
    context,
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Fails the test on any error the page logs or throws, so a broken script cannot pass quietly. */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console: ${msg.text()}`);
  });
  return errors;
}
