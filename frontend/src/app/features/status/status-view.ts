import type { Density, SensorOrder, SensorStatus } from '@monitor/contracts';

/** The states in the summary bar, problems first. */
export const SUMMARY_STATES: readonly SensorStatus[] = ['down', 'warn', 'up', 'paused', 'unknown'];

/** Space between cards (px). */
export const CARD_GAP = 12;
/** Cards are at least this wide (px); narrower screens get one card per row. */
export const MIN_CARD_WIDTH = 290;
/** Height of one list row (px), border included. */
export const LIST_ROW_HEIGHT = 21;
/** Side of one wall tile (px) and the space between tiles. */
export const TILE_SIZE = 22;
export const TILE_GAP = 2;

/** How one density lays the sensors out: rows of equal height, so the visible slice follows from the scroll position. */
export interface BoardLayout {
  readonly columns: number;
  /** Distance from the top of one row to the top of the next (px). */
  readonly pitch: number;
  /** Space between rows (px). */
  readonly gap: number;
}

export function boardLayout(density: Density, width: number, cardHeight: number): BoardLayout {
  switch (density) {
    case 'list':
      return { columns: 1, pitch: LIST_ROW_HEIGHT, gap: 0 };
    case 'wall':
      return {
        columns: Math.max(1, Math.floor((width + TILE_GAP) / (TILE_SIZE + TILE_GAP))),
        pitch: TILE_SIZE + TILE_GAP,
        gap: TILE_GAP,
      };
    default:
      return {
        columns: Math.max(1, Math.floor((width - 4 + CARD_GAP) / (MIN_CARD_WIDTH + CARD_GAP))),
        pitch: cardHeight + CARD_GAP,
        gap: CARD_GAP,
      };
  }
}

/**
 * The rows to draw: those between the window's top and bottom edge plus `overscan` rows either side.
 * `offset` is the window's top edge measured from the board's top (negative above the board).
 */
export function visibleRows(
  offset: number,
  windowHeight: number,
  pitch: number,
  rowCount: number,
  overscan: number,
): { first: number; last: number } {
  const first = Math.min(rowCount, Math.max(0, Math.floor(offset / pitch) - overscan));
  const last = Math.min(rowCount, Math.max(0, Math.ceil((offset + windowHeight) / pitch) + overscan));
  return { first, last: Math.max(first, last) };
}

const RANK: Readonly<Record<SensorStatus, number>> = { down: 0, warn: 1, up: 2, paused: 2, unknown: 2 };

/**
 * Down sensors, then flaky ones, then the rest, each group in the order given (a stable sort);
 * `saved` keeps the order given.
 */
export function ordered<T>(
  items: readonly T[],
  order: SensorOrder,
  statusOf: (item: T) => SensorStatus,
): T[] {
  if (order === 'saved') return [...items];
  const buckets: T[][] = [[], [], []];
  for (const item of items) buckets[RANK[statusOf(item)]].push(item);
  return buckets.flat();
}

/** The last `size` outcomes as slots, oldest first; slots before the first known outcome are `none`. */
export function outcomeSlots(recent: string, size: number): ('ok' | 'fail' | 'none')[] {
  const known = recent.slice(-size);
  const slots: ('ok' | 'fail' | 'none')[] = Array.from({ length: size - known.length }, () => 'none');
  for (const char of known) slots.push(char === '1' ? 'ok' : 'fail');
  return slots;
}
