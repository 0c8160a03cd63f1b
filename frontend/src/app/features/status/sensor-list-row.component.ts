import { ChangeDetectionStrategy, Component, computed } from '@angular/core';
import { RouterLink } from '@angular/router';
import { TranslocoPipe } from '@jsverse/transloco';

import { formatPercent } from '../../core/i18n/format';
import { formatLatency } from '../../shared/format/latency';
import { ResultBarComponent } from './result-bar.component';
import { SensorItem } from './sensor-item';
import { SensorMenuComponent } from './sensor-menu.component';
import { LIST_ROW_HEIGHT } from './status-view';

/** One sensor as one line of the list density; its actions are in a ⋯ menu. */
@Component({
  selector: 'li[appSensorListRow]',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [RouterLink, TranslocoPipe, ResultBarComponent, SensorMenuComponent],
  host: { class: 'list-row' },
  template: `
    @let s = sensor();
    <span class="state" [attr.data-state]="s.status" data-testid="sensor-row-status">
      <span aria-hidden="true">{{ display().symbol }}</span>
      <span class="visually-hidden">{{ display().label }}</span>
    </span>
    <a class="name" [routerLink]="['/sensors', s.id]" [title]="s.name">{{ s.name }}</a>
    <span class="meta" [title]="meta()">
      @if (actions.error(); as message) {
        <span class="bad" role="alert" data-testid="sensor-row-error">{{ message }}</span>
      } @else if (actions.feedback(); as shown) {
        <span [class.bad]="shown.kind === 'bad'" role="status" data-testid="sensor-row-feedback">{{
          shown.text
        }}</span>
      } @else {
        {{ meta() }}
      }
    </span>
    <span class="num latency" data-testid="sensor-row-latency">{{ latency() }}</span>
    <span class="num uptime" data-testid="sensor-row-uptime">
      <span class="visually-hidden">{{ 'status.list.uptime' | transloco }}</span>
      {{ uptime() }}
    </span>
    <app-result-bar class="bar" [recent]="s.recent" />
    <span class="end">
      @if (hasMenu()) {
        <app-sensor-menu [item]="this" />
      }
    </span>
  `,
  styles: `
    :host {
      position: relative;
      display: grid;
      grid-template-columns: 1.25rem minmax(6rem, 2fr) minmax(0, 1.5fr) 4.5rem 4.5rem auto 2rem;
      align-items: center;
      gap: 0 0.6rem;
      box-sizing: border-box;
      block-size: ${LIST_ROW_HEIGHT}px;
      padding-inline: 0.35rem;
      border-block-end: 1px solid var(--border);
      font-size: 0.85rem;
      line-height: 1;
    }
    :host(.changed) {
      background: var(--hover);
    }
    :host(.highlighted) {
      outline: 3px solid var(--focus);
      outline-offset: -3px;
    }
    :host(.drop-target) {
      outline: 2px solid var(--focus);
    }
    :host:has([aria-expanded='true']) {
      z-index: 10;
    }
    :host([draggable='true']) {
      cursor: grab;
    }
    .state {
      font-weight: 700;
      text-align: center;
    }
    .state[data-state='up'] {
      color: var(--success);
    }
    .state[data-state='down'] {
      color: var(--danger);
    }
    .state[data-state='warn'] {
      color: var(--warn-text, #8a5a00);
    }
    .name,
    .meta {
      overflow: hidden;
      text-overflow: ellipsis;
      white-space: nowrap;
    }
    .name {
      font-weight: 600;
    }
    .meta {
      color: var(--text-muted);
    }
    .bad {
      color: var(--danger);
      font-weight: 600;
    }
    .num {
      font-variant-numeric: tabular-nums;
      text-align: end;
      white-space: nowrap;
    }
    .end {
      display: flex;
      justify-content: end;
    }
    @media (max-width: 37.5rem) {
      :host {
        grid-template-columns: 1.25rem minmax(0, 1fr) auto 2rem;
      }
      .meta,
      .latency,
      .uptime {
        display: none;
      }
    }
  `,
})
export class SensorListRowComponent extends SensorItem {
  protected readonly meta = computed(() => {
    const s = this.sensor();
    return [s.group, ...s.tags.map((tag) => `#${tag}`)].filter(Boolean).join(' · ');
  });
  protected readonly latency = computed(() => {
    const ms = this.sensor().latency_ms;
    return ms === null ? '—' : formatLatency(ms);
  });
  protected readonly uptime = computed(() => {
    const percent = this.sensor().uptime_24h;
    return percent === null ? '—' : formatPercent(percent, 1);
  });
}
