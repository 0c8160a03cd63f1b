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
import type { Incident, ProbeResult, Sensor } from '@monitor/contracts';

import { ApiClient } from '../../core/api/api-client.service';
import { ApiCallError } from '../../core/api/api-call-error';
import { statusDisplay } from '../sensor-detail/sensor-status';
import { SparklineComponent } from './sparkline.component';
import { StatusSensorsStore, type SensorRow } from './status-sensors.store';

/** Every card has this height (px), so the grid can work out which cards are visible. */
export const CARD_HEIGHT = 248;

/** A latency as people read it. */
export function formatLatency(ms: number): string {
  return `${ms >= 100 ? Math.round(ms) : Math.round(ms * 10) / 10} ms`;
}

type Feedback = { kind: 'ok' | 'bad'; text: string } | undefined;

/**
 * One sensor of the grid. It reads its own sensor signal, so a live result redraws this card only.
 * Operators and administrators get Run now, Pause/Resume (not for file-managed sensors) and
 * Acknowledge (when an incident is open); administrators also get the move buttons.
 */
@Component({
  selector: 'li[appSensorCard]',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [DatePipe, RouterLink, SparklineComponent],
  host: {
    class: 'card',
    '[class.changed]': 'row().changed()',
    '[attr.data-testid]': "'sensor-row-' + row().id",
    '[attr.data-changed]': "row().changed() ? 'true' : null",
    '[attr.data-sensor-name]': 'sensor().name',
    '[attr.draggable]': "canReorder() ? 'true' : null",
  },
  template: `
    @let s = sensor();
    <div class="head">
      <a class="name" [routerLink]="['/sensors', s.id]" [title]="s.name">{{ s.name }}</a>
      <span class="status" [attr.data-status]="s.status" data-testid="sensor-row-status">
        <span class="status-symbol" aria-hidden="true">{{ display().symbol }}</span>
        {{ display().label }}
      </span>
    </div>
    <p class="message" data-testid="sensor-row-message" [title]="s.message">{{ s.message || '—' }}</p>
    <div class="measure">
      <app-sparkline [points]="s.sparkline" />
      <span class="facts">
        @if (s.latency_ms !== null) {
          <span data-testid="sensor-row-latency">{{ latency(s.latency_ms) }}</span>
        }
        @if (s.last_checked_at; as checked) {
          <span>
            checked
            <time [attr.datetime]="checked" data-testid="sensor-row-checked">{{
              checked | date: 'HH:mm:ss'
            }}</time>
          </span>
        } @else {
          <span>not checked yet</span>
        }
      </span>
    </div>
    <p class="meta" [title]="metaTitle()">
      @if (s.group) {
        <span data-testid="sensor-row-group"><span class="label">group</span> {{ s.group }}</span>
      }
      @if (s.site) {
        <span data-testid="sensor-row-site"><span class="label">site</span> {{ s.site }}</span>
      }
      @for (tag of s.tags; track tag) {
        <span class="tag" data-testid="sensor-row-tag"
          ><span class="visually-hidden">Tag: </span>#{{ tag }}</span
        >
      }
      @if (s.managed_by) {
        <span class="badge" data-testid="sensor-row-managed">From configuration file</span>
      }
      @if (s.sample) {
        <span class="badge" data-testid="sensor-row-sample">Sample</span>
      }
    </p>
    <div class="feedback">
      @if (error(); as message) {
        <p class="error" role="alert" data-testid="sensor-row-error" [title]="message">{{ message }}</p>
      } @else if (feedback(); as shown) {
        <p
          [class.bad]="shown.kind === 'bad'"
          role="status"
          data-testid="sensor-row-feedback"
          [title]="shown.text"
        >
          {{ shown.text }}
        </p>
      }
    </div>
    @if (canOperate() || canReorder()) {
      <div class="actions">
        @if (canOperate()) {
          <button type="button" class="button button-small" [disabled]="busy()" (click)="runNow()">
            Run now<span class="visually-hidden"> for {{ s.name }}</span>
          </button>
          @if (!s.managed_by) {
            <button type="button" class="button button-small" [disabled]="busy()" (click)="toggle()">
              {{ s.enabled ? 'Pause' : 'Resume' }}<span class="visually-hidden"> {{ s.name }}</span>
            </button>
          }
          @if (s.incident_id !== null) {
            <button
              type="button"
              class="button button-small"
              [disabled]="busy()"
              [attr.aria-expanded]="acking()"
              (click)="openAck()"
            >
              Acknowledge<span class="visually-hidden"> {{ s.name }}</span>
            </button>
          }
        }
        @if (canReorder()) {
          <span class="move">
            <button
              type="button"
              class="button button-small"
              data-testid="move-up"
              [disabled]="isFirst() || moving()"
              (click)="move.emit(-1)"
            >
              <span aria-hidden="true">↑</span><span class="visually-hidden">Move {{ s.name }} up</span>
            </button>
            <button
              type="button"
              class="button button-small"
              data-testid="move-down"
              [disabled]="isLast() || moving()"
              (click)="move.emit(1)"
            >
              <span aria-hidden="true">↓</span><span class="visually-hidden">Move {{ s.name }} down</span>
            </button>
          </span>
        }
      </div>
    }
    @if (acking()) {
      <form class="ack" (submit)="$event.preventDefault(); acknowledge(note.value)">
        <label [for]="'ack-note-' + s.id">Note for acknowledging {{ s.name }} (optional)</label>
        <input #note class="input" [id]="'ack-note-' + s.id" maxlength="500" autocomplete="off" />
        <div class="actions">
          <button type="submit" class="button button-small button-primary" [disabled]="busy()">
            Acknowledge
          </button>
          <button type="button" class="button button-small" (click)="closeAck()">Cancel</button>
        </div>
      </form>
    }
  `,
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
  /** -1: one place earlier; 1: one place later. */
  readonly move = output<-1 | 1>();

  protected readonly sensor = computed(() => this.row().sensor());
  protected readonly display = computed(() => statusDisplay(this.sensor().status));
  protected readonly metaTitle = computed(() => {
    const s = this.sensor();
    return [s.group && `Group ${s.group}`, s.site && `Site ${s.site}`, ...s.tags.map((t) => `#${t}`)]
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
    const latency = result.latency_ms === null ? '' : `, ${formatLatency(result.latency_ms)}`;
    this.feedback.set({
      kind: result.success ? 'ok' : 'bad',
      text: `Run now: ${result.success ? 'succeeded' : 'failed'}: ${result.message}${latency}`,
    });
  }

  protected async toggle(): Promise<void> {
    const enabled = !this.sensor().enabled;
    const sensor = await this.call(() =>
      this.api.patch<Sensor>(`/api/sensors/${this.sensor().id}`, { enabled }),
    );
    if (!sensor) return;
    this.store.applySensor(sensor);
    this.feedback.set({ kind: 'ok', text: enabled ? 'Resumed.' : 'Paused.' });
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
      text: `Acknowledged${incident.acknowledged_by ? ` by ${incident.acknowledged_by}` : ''}.`,
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
