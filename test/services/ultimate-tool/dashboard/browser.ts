// Debian's headless Chromium driven by playwright-core (no browser download). As root the
// Chromium sandbox cannot start (it needs an unprivileged user namespace owner), so --no-sandbox
// is added only when this process runs as uid 0; the page only ever loads our loopback service.
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  return chromium.launch({ executablePath: CHROMIUM, args: root ? ['--no-sandbox'] : [] });
}
