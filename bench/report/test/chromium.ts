/**
 * Headless Chromium for the report's browser tests (`*.system.test.ts`): Debian's chromium at
 * /usr/bin/chromium (`.ci/run` installs it), driven by playwright-core, with everything that could
 * reach the network switched off.
 */
import { chromium, type Browser } from 'playwright-core';

/** Chromium's flags: headless, no sandbox (CI runs as root), no background network or updates. */
export const CHROMIUM_ARGS: readonly string[] = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** Starts the browser; the caller closes it. Throws when /usr/bin/chromium cannot be started. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: [...CHROMIUM_ARGS] });
}
