import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/** Debian's chromium (apt-get install chromium); playwright never downloads a browser here. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Headless chromium with the flags this machine needs (no sandbox as root, no background networking). */
export async function launchBrowser(): Promise<Browser> {
  // No skip: a machine without the browser fails here, saying how to get it.
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `no Chromium at ${CHROMIUM_PATH}: \`pnpm test\` installs Debian's chromium (scripts/ensure-test-services.mjs), or set CHROMIUM_PATH`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      // The page is fulfilled by page.route (no real network hop), which chromium treats as a public
      // address; its Local Network Access checks would then refuse the socket to 127.0.0.1.
      "--disable-features=LocalNetworkAccessChecks",
    ],
  });
}
