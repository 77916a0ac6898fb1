// Headless Chromium from Debian's package (`apt-get install chromium`), driven by playwright-core.
// Tests that need it skip with a message naming the package when it is not installed.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const chromiumInstalled = (): boolean => existsSync(CHROMIUM_PATH);

export const NO_BROWSER_MESSAGE = `browser tests skipped: no Chromium at ${CHROMIUM_PATH} (install it with \`apt-get install -y chromium\`, or set CHROMIUM_PATH)`;

/** Flags for a quiet, offline-friendly headless run in a container (no sandbox, no GPU, no phoning home). */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: FLAGS, headless: true });
}
