import { DatePipe } from '@angular/common';
import {
  ChangeDetectionStrategy,
  Component,
  ElementRef,
  computed,
  inject,
  input,
  output,
  signal,
} from '@angular/core';
import { RouterLink } from '@angular/router';
import { TranslocoPipe } from '@jsverse/transloco';
import type { Incident, ProbeResult, Sensor } from '@monitor/contracts';

import { ApiClient } from '../../core/api/api-client.service';
import { ApiCallError } from '../../core/api/api-call-error';
import { t } from '../../core/i18n/i18n';
import { formatLatency } from '../sensor-detail/latency';
import { statusDisplay } from '../sensor-detail/sensor-status';
import { SparklineComponent } from './sparkline.component';
import { StatusSensorsStore, type SensorRow } from './status-sensors.store';

/** Every card has this height (px), so the grid can work out which cards are visible. */
export const CARD_HEIGHT = 272;

type Feedback = { kind: 'ok' | 'bad'; text: string } | undefined;

/**
 * One sensor of the grid. It reads its own sensor signal, so a live result redraws this card only.
 * Operators and administrators get Run now, Pause/Resume (not for file-managed sensors) and
 * Acknowledge (when an incident is open); administrators also get the move buttons.
 */
@Component({
  selector: 'li[appSensorCard]',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [DatePipe, RouterLink, TranslocoPipe, SparklineComponent],
  host: {
    class: 'card',
    '[class.changed]': 'row().changed()',
    '[class.highlighted]': 'highlighted()',
    '[attr.data-highlighted]': "highlighted() ? 'true' : null",
    '[attr.data-testid]': "'sensor-row-' + row().id",
    '[attr.data-changed]': "row().changed() ? 'true' : null",
    '[attr.data-sensor-name]': 'sensor().name',
    '[attr.draggable]': "canReorder() ? 'true' : null",
  },
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
      overflow: hidden;
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
      justify-content: space-between;
      gap: 0.5rem;
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
    .status[data-status='up'] .status-symbol {
      color: var(--success);
    }
    .status[data-status='down'] .status-symbol {
      color: var(--danger);
    }
    .message,
    .meta,
    .feedback p {
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
      align-items: center;
      flex-wrap: wrap;
      gap: 0.25rem 0.75rem;
    }
    .facts {
      display: flex;
      flex-wrap: wrap;
      gap: 0 0.75rem;
      font-size: 0.88rem;
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
    .feedback {
      min-block-size: 1.3rem;
    }
    .error,
    .bad {
      color: var(--danger);
      font-weight: 600;
    }
    .actions {
      display: flex;
      flex-wrap: wrap;
      gap: 0.35rem;
      margin-block-start: auto;
    }
    .move .button {
      padding-inline: 0.6rem;
    }
    .move {
      display: inline-flex;
      gap: 0.35rem;
      margin-inline-start: auto;
    }
    .ack {
      position: absolute;
      inset: 0;
      display: flex;
      flex-direction: column;
      gap: 0.4rem;
      padding: 0.6rem 0.75rem;
      background: var(--surface);
    }
    .ack label {
      font-weight: 600;
    }
  `,
})
export class SensorCardComponent {
  private readonly api = inject(ApiClient);
  private readonly store = inject(StatusSensorsStore);
  readonly host = inject<ElementRef<HTMLElement>>(ElementRef);

  readonly row = input.required<SensorRow>();
  readonly canOperate = input(false);
  readonly canReorder = input(false);
  readonly isFirst = input(false);
  readonly isLast = input(false);
  readonly moving = input(false);
  /** The sensor was just created (the editor returned here): marked for a moment. */
  readonly highlighted = input(false);
  /** -1: one place earlier; 1: one place later. */
  readonly move = output<-1 | 1>();

  protected readonly sensor = computed(() => this.row().sensor());
  protected readonly display = computed(() => statusDisplay(this.sensor().status));
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
  protected readonly busy = signal(false);
  protected readonly acking = signal(false);
  protected readonly error = signal<string | undefined>(undefined);
  protected readonly feedback = signal<Feedback>(undefined);

  protected latency(ms: number): string {
    return formatLatency(ms);
  }

  protected openAck(): void {
    this.acking.set(true);
    setTimeout(() => this.host.nativeElement.querySelector<HTMLInputElement>('.ack input')?.focus());
  }

  protected closeAck(): void {
    this.acking.set(false);
    setTimeout(() => this.host.nativeElement.querySelector<HTMLButtonElement>('.actions button')?.focus());
  }

  protected async runNow(): Promise<void> {
    const result = await this.call(() =>
      this.api.post<ProbeResult>(`/api/sensors/${this.sensor().id}/probe`),
    );
    if (!result) return;
    const outcome = result.success ? 'ok' : 'failed';
    this.feedback.set({
      kind: result.success ? 'ok' : 'bad',
      text:
        result.latency_ms === null
          ? t('status.card.runResult', { outcome, message: result.message })
          : t('status.card.runResultLatency', {
              outcome,
              message: result.message,
              latency: formatLatency(result.latency_ms),
            }),
    });
  }

  protected async toggle(): Promise<void> {
    const enabled = !this.sensor().enabled;
    const sensor = await this.call(() =>
      this.api.patch<Sensor>(`/api/sensors/${this.sensor().id}`, { enabled }),
    );
    if (!sensor) return;
    this.store.applySensor(sensor);
    this.feedback.set({ kind: 'ok', text: t(enabled ? 'status.card.resumed' : 'status.card.paused') });
  }

  protected async acknowledge(note: string): Promise<void> {
    const trimmed = note.trim();
    const incident = await this.call(() =>
      this.api.post<Incident>(`/api/sensors/${this.sensor().id}/ack`, trimmed ? { note: trimmed } : {}),
    );
    if (!incident) return;
    this.acking.set(false);
    this.feedback.set({
      kind: 'ok',
      text: incident.acknowledged_by
        ? t('status.card.acknowledgedBy', { user: incident.acknowledged_by })
        : t('status.card.acknowledged'),
    });
  }

  private async call<T>(request: () => Promise<T>): Promise<T | undefined> {
    this.busy.set(true);
    this.error.set(undefined);
    this.feedback.set(undefined);
    try {
      return await request();
    } catch (failure) {
      this.error.set(ApiCallError.from(failure).message);
      return undefined;
    } finally {
      this.busy.set(false);
    }
  }
}
