import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, ElementRef, computed, inject } from '@angular/core';
import { RouterLink } from '@angular/router';
import { TranslocoPipe } from '@jsverse/transloco';
import { t } from '../../core/i18n/i18n';
import { formatLatency } from '../../shared/format/latency';
import { SensorMenuComponent } from './sensor-menu.component';
import { SparklineComponent } from './sparkline.component';
import { SensorItem } from './sensor-item';

/** Every card has this height (px), so the grid can work out which cards are visible. */
export const CARD_HEIGHT = 128;

/**
 * One sensor of the grid. It reads its own sensor signal, so a live result redraws this card only.
 * Its actions are in a ⋯ menu ({@link SensorMenuComponent}), so every card has the same small height.
 */
@Component({
  selector: 'li[appSensorCard]',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [DatePipe, RouterLink, TranslocoPipe, SensorMenuComponent, SparklineComponent],
  host: { class: 'card' },
  templateUrl: './sensor-card.component.html',
  styles: `
    :host {
      position: relative;
      display: flex;
      flex-direction: column;
      gap: 0.3rem;
      box-sizing: border-box;
      block-size: ${CARD_HEIGHT}px;
      min-inline-size: 0;
      padding: 0.6rem 0.75rem;
      border: 1px solid var(--border);
      border-radius: var(--radius);
      background: var(--surface);
      outline: 2px solid transparent;
      transition:
        background-color 0.4s ease,
        outline-color 0.4s ease;
    }
    /* A status just changed: outlined and tinted for a moment (the text says what it is now). */
    :host(.changed) {
      outline-color: var(--accent);
      background: var(--hover);
    }
    /* Just created: a thick outline and a label saying so (not the colour alone), for a few seconds. */
    :host(.highlighted) {
      outline: 3px solid var(--focus);
      outline-offset: -1px;
      background: var(--hover);
    }
    .added {
      position: absolute;
      inset-block-start: 0;
      inset-inline-start: 50%;
      transform: translateX(-50%);
      padding: 0.05rem 0.5rem 0.1rem;
      border-radius: 0 0 var(--radius) var(--radius);
      background: var(--accent);
      color: var(--on-accent);
      font-size: 0.75rem;
      font-weight: 600;
      line-height: 1.2;
    }
    /* The open menu lies over the cards below. */
    :host:has([aria-expanded='true']) {
      z-index: 10;
    }
    :host([draggable='true']) {
      cursor: grab;
    }
    :host(.drop-target) {
      outline-color: var(--focus);
    }
    :host > * {
      flex: none;
    }
    p {
      margin: 0;
    }
    .label {
      font-size: 0.78rem;
      text-transform: uppercase;
      letter-spacing: 0.03em;
    }
    .head {
      display: flex;
      align-items: center;
      gap: 0.5rem;
    }
    .head .name {
      flex: 1;
    }
    .name {
      font-weight: 600;
      overflow: hidden;
      text-overflow: ellipsis;
      white-space: nowrap;
    }
    .status {
      flex: none;
      font-weight: 600;
    }
    .status-symbol {
      display: inline-block;
      min-inline-size: 1.1em;
      text-align: center;
    }
    .status[data-state='up'] .status-symbol {
      color: var(--success);
    }
    .status[data-state='down'] .status-symbol {
      color: var(--danger);
    }
    .message,
    .meta,
    .error,
    [role='status'] {
      overflow: hidden;
      text-overflow: ellipsis;
      white-space: nowrap;
      font-size: 0.88rem;
    }
    .message,
    .facts,
    .meta {
      color: var(--text-muted);
    }
    .measure {
      display: flex;
      block-size: 28px;
      align-items: center;
      gap: 0.5rem;
      overflow: hidden;
    }
    .facts {
      display: flex;
      gap: 0 0.5rem;
      min-inline-size: 0;
      overflow: hidden;
      font-size: 0.82rem;
      white-space: nowrap;
    }
    .meta span + span {
      margin-inline-start: 0.5rem;
    }
    .badge {
      display: inline-block;
      padding: 0 0.4rem;
      border: 1px solid var(--border-strong);
      border-radius: 999px;
      color: var(--text);
      font-size: 0.78rem;
    }
    .error,
    .bad {
      color: var(--danger);
      font-weight: 600;
    }
  `,
})
export class SensorCardComponent extends SensorItem {
  readonly host = inject<ElementRef<HTMLElement>>(ElementRef);

  protected readonly metaTitle = computed(() => {
    const s = this.sensor();
    return [
      s.group && t('status.card.groupTitle', { group: s.group }),
      s.site && t('status.card.siteTitle', { site: s.site }),
      ...s.tags.map((tag) => `#${tag}`),
    ]
      .filter(Boolean)
      .join(', ');
  });
  protected readonly error = this.actions.error;
  protected readonly feedback = this.actions.feedback;

  protected latency(ms: number): string {
    return formatLatency(ms);
  }
}
