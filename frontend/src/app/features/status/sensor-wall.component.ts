import {
  ChangeDetectionStrategy,
  Component,
  DestroyRef,
  ElementRef,
  ViewEncapsulation,
  effect,
  inject,
  input,
  untracked,
} from '@angular/core';
import { Router } from '@angular/router';
import type { SummarySensor } from '@monitor/contracts';

import { activeLanguage } from '../../core/i18n/i18n';
import { statusDisplay } from '../../shared/format/sensor-status';
import { StatusSensorsStore, type SensorRow } from './status-sensors.store';
import { TILE_SIZE } from './status-view';

/** One drawn tile and what it shows, so a redraw touches only what changed. */
interface Tile {
  readonly li: HTMLLIElement;
  readonly face: HTMLAnchorElement;
  readonly symbol: HTMLSpanElement;
  sensor?: SummarySensor;
  language?: string;
  changed?: boolean;
  highlighted?: boolean;
  tipAtEnd?: boolean;
}

const TIP_ID = 'sensor-wall-tip';

/**
 * The wall density: one small tile per sensor in the colour of its state with the state's symbol
 * (not colour alone), each a link to the sensor; name, state and last message in one tooltip that
 * moves to the tile under the pointer or, failing that, the focused one.
 *
 * The tiles are plain elements drawn by hand rather than a component each: the wall shows thousands
 * at once, and a component per tile (its bindings, its router link) cost most of a second to create
 * and several milliseconds per live result to check. One listener each for clicks, pointer and
 * focus serves every tile.
 */
@Component({
  selector: 'ul[appSensorWall]',
  changeDetection: ChangeDetectionStrategy.OnPush,
  // The tiles are made by hand, without the attributes that scoped styles would need.
  encapsulation: ViewEncapsulation.None,
  host: {
    class: 'sensor-wall',
    '(click)': 'click($event)',
    '(mouseover)': 'pointAt($event)',
    '(mouseleave)': 'pointAt(undefined)',
    '(focusin)': 'focusOn($event)',
    '(focusout)': 'focusOn(undefined)',
  },
  template: '',
  styles: `
    .sensor-wall .wall-tile {
      position: relative;
      display: block;
      inline-size: ${TILE_SIZE}px;
      block-size: ${TILE_SIZE}px;
    }
    .sensor-wall .face {
      display: grid;
      place-items: center;
      box-sizing: border-box;
      inline-size: 100%;
      block-size: 100%;
      border-radius: 3px;
      font-size: 0.8rem;
      font-weight: 700;
      line-height: 1;
      text-decoration: none;
    }
    .sensor-wall .face[data-state='up'] {
      background: var(--success);
      color: var(--on-success);
    }
    .sensor-wall .face[data-state='down'] {
      background: var(--danger);
      color: var(--on-danger);
    }
    .sensor-wall .face[data-state='warn'] {
      background: #9a6700;
      color: #ffffff;
    }
    .sensor-wall .face[data-state='paused'],
    .sensor-wall .face[data-state='unknown'] {
      border: 1px solid var(--border-strong);
      background: var(--hover);
      color: var(--text-muted);
    }
    .sensor-wall .face:focus-visible,
    .sensor-wall .changed .face,
    .sensor-wall .highlighted .face {
      outline: 3px solid var(--focus);
      outline-offset: 1px;
    }
    .sensor-wall .tip {
      position: absolute;
      inset-block-end: calc(100% + 6px);
      inset-inline-start: 0;
      z-index: 20;
      display: flex;
      flex-direction: column;
      gap: 0.15rem;
      inline-size: max-content;
      max-inline-size: min(18rem, 80vw);
      padding: 0.4rem 0.6rem;
      border: 1px solid var(--border-strong);
      border-radius: var(--radius);
      background: var(--surface);
      box-shadow: var(--shadow);
      color: var(--text);
      font-size: 0.85rem;
      pointer-events: none;
    }
    .sensor-wall .tip-end .tip {
      inset-inline-start: auto;
      inset-inline-end: 0;
    }
    .sensor-wall .tip .message {
      color: var(--text-muted);
      overflow-wrap: anywhere;
    }
    .sensor-wall .tip-open {
      z-index: 10;
    }
  `,
})
export class SensorWallComponent {
  private readonly host = inject<ElementRef<HTMLUListElement>>(ElementRef).nativeElement;
  private readonly router = inject(Router);
  private readonly store = inject(StatusSensorsStore);

  /** The sensors to draw, in order. */
  readonly rows = input.required<readonly SensorRow[]>();
  /** Position of the first of them among all shown sensors, for the tooltip's side. */
  readonly firstIndex = input(0);
  readonly columns = input(1);
  /** The sensor marked as just created. */
  readonly highlighted = input<number | undefined>(undefined);

  private readonly tiles = new Map<number, Tile>();
  private readonly tip = this.makeTip();
  private pointed: number | undefined;
  private focused: number | undefined;
  /** The tile the tooltip is in, and the sensor it describes. */
  private tipped: { id: number; sensor: SummarySensor; language: string } | undefined;

  constructor() {
    effect(() => {
      const rows = this.rows();
      const firstIndex = this.firstIndex();
      const columns = this.columns();
      const highlighted = this.highlighted();
      const language = activeLanguage();
      this.store.revision();
      untracked(() => this.draw(rows, firstIndex, columns, highlighted, language));
    });
    inject(DestroyRef).onDestroy(() => this.tiles.clear());
  }

  private draw(
    rows: readonly SensorRow[],
    firstIndex: number,
    columns: number,
    highlighted: number | undefined,
    language: string,
  ): void {
    const wanted = new Set<number>();
    let cursor = this.host.firstElementChild;
    rows.forEach((row, index) => {
      wanted.add(row.id);
      const tile = this.tiles.get(row.id) ?? this.makeTile(row.id);
      this.update(tile, row, (firstIndex + index) % columns > columns / 2, highlighted === row.id, language);
      // A tile that moved later is stepped over here and put in its place when its turn comes, so
      // one sensor changing places moves one element.
      if (tile.li !== cursor && tile.li === cursor?.nextElementSibling) cursor = tile.li;
      if (tile.li === cursor) cursor = cursor.nextElementSibling;
      else this.host.insertBefore(tile.li, cursor);
    });
    for (const [id, tile] of this.tiles) {
      if (wanted.has(id)) continue;
      tile.li.remove();
      this.tiles.delete(id);
    }
    if (this.pointed !== undefined && !wanted.has(this.pointed)) this.pointed = undefined;
    if (this.focused !== undefined && !wanted.has(this.focused)) this.focused = undefined;
    this.placeTip(language);
  }

  private makeTile(id: number): Tile {
    const li = document.createElement('li');
    li.className = 'wall-tile';
    li.dataset['testid'] = `sensor-row-${id}`;
    li.dataset['sensorId'] = String(id);
    const face = document.createElement('a');
    face.className = 'face';
    face.href = `/sensors/${id}`;
    face.dataset['testid'] = 'sensor-tile';
    const symbol = document.createElement('span');
    symbol.setAttribute('aria-hidden', 'true');
    face.append(symbol);
    li.append(face);
    const tile: Tile = { li, face, symbol };
    this.tiles.set(id, tile);
    return tile;
  }

  private update(
    tile: Tile,
    row: SensorRow,
    tipAtEnd: boolean,
    highlighted: boolean,
    language: string,
  ): void {
    const sensor = row.sensor();
    const changed = row.changed();
    const { li, face } = tile;
    if (
      !tile.sensor ||
      tile.language !== language ||
      tile.sensor.status !== sensor.status ||
      tile.sensor.name !== sensor.name
    ) {
      const display = statusDisplay(sensor.status);
      li.dataset['status'] = sensor.status;
      li.dataset['sensorName'] = sensor.name;
      face.dataset['state'] = sensor.status;
      face.setAttribute('aria-label', `${sensor.name}: ${display.label}`);
      tile.symbol.textContent = sensor.status === 'up' ? '' : display.symbol;
      tile.language = language;
    }
    tile.sensor = sensor;
    if (tile.changed !== changed) li.classList.toggle('changed', (tile.changed = changed));
    if (tile.highlighted !== highlighted) {
      li.classList.toggle('highlighted', (tile.highlighted = highlighted));
      if (highlighted) li.dataset['highlighted'] = 'true';
      else delete li.dataset['highlighted'];
    }
    if (tile.tipAtEnd !== tipAtEnd) li.classList.toggle('tip-end', (tile.tipAtEnd = tipAtEnd));
  }

  private makeTip(): HTMLSpanElement {
    const tip = document.createElement('span');
    tip.className = 'tip';
    tip.id = TIP_ID;
    tip.setAttribute('role', 'tooltip');
    tip.dataset['testid'] = 'sensor-tile-tip';
    return tip;
  }

  /** Puts the tooltip in the tile under the pointer, else the focused one, else nowhere. */
  private placeTip(language: string): void {
    const id = this.pointed ?? this.focused;
    const tile = id === undefined ? undefined : this.tiles.get(id);
    const previous = this.tipped === undefined ? undefined : this.tiles.get(this.tipped.id);
    if (!tile?.sensor || id === undefined) {
      this.tip.remove();
      previous?.li.classList.remove('tip-open');
      previous?.face.removeAttribute('aria-describedby');
      this.tipped = undefined;
      return;
    }
    if (
      this.tipped?.id === id &&
      this.tipped.sensor === tile.sensor &&
      this.tipped.language === language &&
      this.tip.parentElement === tile.li
    )
      return;
    if (previous && previous !== tile) {
      previous.li.classList.remove('tip-open');
      previous.face.removeAttribute('aria-describedby');
    }
    const sensor = tile.sensor;
    const display = statusDisplay(sensor.status);
    const name = document.createElement('strong');
    name.textContent = sensor.name;
    const state = document.createElement('span');
    state.textContent = `${display.symbol} ${display.label}`;
    const parts: HTMLElement[] = [name, state];
    if (sensor.message) {
      const message = document.createElement('span');
      message.className = 'message';
      message.textContent = sensor.message;
      parts.push(message);
    }
    this.tip.replaceChildren(...parts);
    tile.li.classList.add('tip-open');
    tile.face.setAttribute('aria-describedby', TIP_ID);
    if (this.tip.parentElement !== tile.li) tile.li.append(this.tip);
    this.tipped = { id, sensor, language };
  }

  private tileOf(target: EventTarget | null | undefined): number | undefined {
    const li = target instanceof Element ? target.closest<HTMLElement>('.wall-tile') : null;
    const id = li?.dataset['sensorId'];
    return id === undefined ? undefined : Number(id);
  }

  protected pointAt(event: MouseEvent | undefined): void {
    const id = this.tileOf(event?.target);
    if (id === this.pointed) return;
    this.pointed = id;
    this.placeTip(activeLanguage());
  }

  protected focusOn(event: FocusEvent | undefined): void {
    const id = this.tileOf(event?.target);
    if (id === this.focused) return;
    this.focused = id;
    this.placeTip(activeLanguage());
  }

  /** A plain click on a tile follows its link inside the app, as a router link would. */
  protected click(event: MouseEvent): void {
    const face = event.target instanceof Element ? event.target.closest('a.face') : null;
    const id = this.tileOf(face);
    if (
      id === undefined ||
      event.button !== 0 ||
      event.ctrlKey ||
      event.metaKey ||
      event.shiftKey ||
      event.altKey
    )
      return;
    event.preventDefault();
    void this.router.navigate(['/sensors', id]);
  }
}
