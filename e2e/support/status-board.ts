import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Sensor } from '@monitor/contracts';
import type { APIRequestContext, Page } from 'playwright-core';

/** A local HTTP service whose answer the test switches between 200 and 500. */
export async function startSwitchableTarget(): Promise<{
  url: string;
  status: number;
  close(): Promise<void>;
}> {
  const target = { url: '', status: 200, close: (): Promise<void> => Promise.resolve() };
  const server: Server = createServer((_request, response) => {
    response.writeHead(target.status, { 'content-type': 'text/plain' });
    response.end(target.status === 200 ? 'ok' : 'broken');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  target.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/health`;
  target.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return target;
}

/** Creates sensors through the API, `batch` at a time; returns them in creation order. */
export async function createSensors(
  api: APIRequestContext,
  serverUrl: string,
  bodies: readonly Record<string, unknown>[],
  batch = 40,
): Promise<Sensor[]> {
  const made: Sensor[] = [];
  for (let start = 0; start < bodies.length; start += batch) {
    const answers = await Promise.all(
      bodies.slice(start, start + batch).map(async (data) => {
        const response = await api.post(`${serverUrl}/api/sensors`, { data });
        if (response.status() !== 201)
          throw new Error(`create answered ${response.status()}: ${await response.text()}`);
        return (await response.json()) as Sensor;
      }),
    );
    made.push(...answers);
  }
  return made;
}

/** The `data-testid` ids of the sensors drawn on the board, in document order. */
export function drawnIds(page: Page): Promise<number[]> {
  return page
    .locator('[data-testid="sensor-list"] > [data-status]')
    .evaluateAll((items) =>
      items.map((item) => Number(item.getAttribute('data-testid')!.slice('sensor-row-'.length))),
    );
}

/** How many sensors of the board lie wholly inside the window. */
export function fullyVisibleSensors(page: Page): Promise<number> {
  return page.evaluate<number>(`[...document.querySelectorAll('[data-testid="sensor-list"] > [data-status]')]
    .filter((item) => { const box = item.getBoundingClientRect(); return box.top >= 0 && box.left >= 0 && box.bottom <= window.innerHeight && box.right <= window.innerWidth && box.height > 0; })
    .length`);
}

/** True when the page scrolls sideways (its content is wider than the window). */
export function scrollsSideways(page: Page): Promise<boolean> {
  return page.evaluate<boolean>(
    'document.scrollingElement.scrollWidth > document.scrollingElement.clientWidth',
  );
}
