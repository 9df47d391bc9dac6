import type { Page } from "playwright-core";

type Recorded = { offered: string[][] };

/**
 * Records the subprotocols of every WebSocket the page opens (wraps the constructor before the
 * page's scripts run; the init script is injected by the browser, so the page's CSP does not apply).
 */
export async function recordSubprotocols(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const seen: Recorded = { offered: [] };
    (window as unknown as { wsRecorded: Recorded }).wsRecorded = seen;
    const Native = window.WebSocket;
    window.WebSocket = class extends Native {
      constructor(url: string | URL, protocols?: string | string[]) {
        super(url, protocols);
        seen.offered.push(protocols === undefined ? [] : [protocols].flat());
      }
    };
  });
}

/** The subprotocol lists offered so far, one per socket opened. */
export function offeredSubprotocols(page: Page): Promise<string[][]> {
  return page.evaluate(() => (window as unknown as { wsRecorded: Recorded }).wsRecorded.offered);
}
