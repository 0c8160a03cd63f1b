import { ChangeDetectionStrategy, Component, computed, input } from '@angular/core';
import { RouterLink } from '@angular/router';

import { statusDisplay } from '../sensor-detail/sensor-status';
import type { SensorRow } from './status-sensors.store';
import { TILE_SIZE } from './status-view';

/**
 * One sensor of the wall: a small tile in the colour of its state with the state's symbol (so it does
 * not rest on colour alone), a link to the sensor; name, state and last message in a tooltip that
 * shows on hover and on keyboard focus.
 */
@Component({
  selector: 'li[appSensorTile]',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [RouterLink],
  host: {
    class: 'tile',
    '[class.changed]': 'row().changed()',
    '[class.highlighted]': 'highlighted()',
    '[class.tip-end]': 'tipAtEnd()',
    '[attr.data-highlighted]': "highlighted() ? 'true' : null",
    '[attr.data-testid]': "'sensor-row-' + row().id",
    '[attr.data-status]': 'sensor().status',
    '[attr.data-sensor-name]': 'sensor().name',
  },
  template: `
    @let s = sensor();
    <a
      class="face"
      [routerLink]="['/sensors', s.id]"
      [attr.data-state]="s.status"
      [attr.aria-label]="s.name + ': ' + display().label"
      [attr.aria-describedby]="'tile-tip-' + s.id"
      data-testid="sensor-tile"
      ><span aria-hidden="true">{{ s.status === 'up' ? '' : display().symbol }}</span></a
    >
    <span class="tip" role="tooltip" [id]="'tile-tip-' + s.id" data-testid="sensor-tile-tip">
      <strong>{{ s.name }}</strong>
      <span>{{ display().symbol }} {{ display().label }}</span>
      @if (s.message) {
        <span class="message">{{ s.message }}</span>
      }
    </span>
  `,
  styles: `
    :host {
      position: relative;
      display: block;
      inline-size: ${TILE_SIZE}px;
      block-size: ${TILE_SIZE}px;
    }
    .face {
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
    .face[data-state='up'] {
      background: var(--success);
      color: var(--on-success);
    }
    .face[data-state='down'] {
      background: var(--danger);
      color: var(--on-danger);
    }
    .face[data-state='warn'] {
      background: #9a6700;
      color: #ffffff;
    }
    .face[data-state='paused'],
    .face[data-state='unknown'] {
      border: 1px solid var(--border-strong);
      background: var(--hover);
      color: var(--text-muted);
    }
    .face:focus-visible {
      outline: 3px solid var(--focus);
      outline-offset: 1px;
    }
    :host(.changed) .face,
    :host(.highlighted) .face {
      outline: 3px solid var(--focus);
      outline-offset: 1px;
    }
    .tip {
      position: absolute;
      inset-block-end: calc(100% + 6px);
      inset-inline-start: 0;
      z-index: 20;
      display: none;
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
    :host(.tip-end) .tip {
      inset-inline-start: auto;
      inset-inline-end: 0;
    }
    .message {
      color: var(--text-muted);
      overflow-wrap: anywhere;
    }
    :host(:hover) .tip,
    :host(:focus-within) .tip {
      display: flex;
    }
    :host(:hover),
    :host(:focus-within) {
      z-index: 10;
    }
  `,
})
export class SensorTileComponent {
  readonly row = input.required<SensorRow>();
  readonly highlighted = input(false);
  /** The tile lies in the right half of the wall: its tooltip opens leftwards. */
  readonly tipAtEnd = input(false);

  protected readonly sensor = computed(() => this.row().sensor());
  protected readonly display = computed(() => statusDisplay(this.sensor().status));
}
