import { DatePipe } from '@angular/common';
import {
  ChangeDetectionStrategy,
  Component,
  computed,
  effect,
  inject,
  input,
  output,
  signal,
  untracked,
} from '@angular/core';
import { RouterLink } from '@angular/router';
import { TranslocoPipe } from '@jsverse/transloco';
import type { Incident } from '@monitor/contracts';

import { CLOCK } from '../../core/browser/clock';
import { injectFocus, inputValue } from '../../shared/forms/form-helpers';
import { formatDuration, isoDuration } from '../../shared/format/duration';
import { around } from '../../core/i18n/emphasis';

/** What the person asked for; the page makes the call and passes the changed incident back in. */
export interface AcknowledgeRequest {
  readonly incident: Incident;
  readonly note: string;
}

/**
 * A table of incidents, newest first as given: started, resolved or open, duration, cause and who
 * acknowledged it. With `canAcknowledge`, open incidents get Acknowledge (with an optional note)
 * and Un-acknowledge buttons; the table emits, the page calls the API.
 */
@Component({
  selector: 'app-incident-table',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [DatePipe, RouterLink, TranslocoPipe],
  template: `
    <div class="table-scroll" role="region" tabindex="0" [attr.aria-labelledby]="captionId()">
      <table class="data-table incidents" role="table" data-testid="incident-table">
        <caption class="visually-hidden">
          <span [id]="captionId()">{{ caption() ?? ('incidents.table.caption' | transloco) }}</span>
        </caption>
        <thead role="rowgroup">
          <tr role="row">
            @if (showSensor()) {
              <th scope="col" role="columnheader">{{ 'incidents.table.sensor' | transloco }}</th>
            }
            <th scope="col" role="columnheader">{{ 'incidents.table.started' | transloco }}</th>
            <th scope="col" role="columnheader">{{ 'incidents.table.resolved' | transloco }}</th>
            <th scope="col" role="columnheader">{{ 'incidents.table.duration' | transloco }}</th>
            <th scope="col" role="columnheader">{{ 'incidents.table.cause' | transloco }}</th>
            <th scope="col" role="columnheader">{{ 'incidents.table.acknowledged' | transloco }}</th>
            @if (canAcknowledge()) {
              <th scope="col" role="columnheader">
                <span class="visually-hidden">{{ 'incidents.table.actions' | transloco }}</span>
              </th>
            }
          </tr>
        </thead>
        <tbody role="rowgroup">
          @for (row of rows(); track row.incident.id) {
            <tr role="row" [attr.data-testid]="'incident-' + row.incident.id" [class.open]="row.open">
              @if (showSensor()) {
                <td role="cell" [attr.data-label]="'incidents.table.sensor' | transloco">
                  <a [routerLink]="['/sensors', row.incident.sensor_id]">{{ row.incident.sensor_name }}</a>
                </td>
              }
              <td role="cell" class="when" [attr.data-label]="'incidents.table.started' | transloco">
                <time [attr.datetime]="row.incident.started_at">{{
                  row.incident.started_at | date: 'yyyy-MM-dd HH:mm:ss'
                }}</time>
              </td>
              <td role="cell" class="when" [attr.data-label]="'incidents.table.resolved' | transloco">
                @if (row.incident.resolved_at; as resolved) {
                  <time [attr.datetime]="resolved">{{ resolved | date: 'yyyy-MM-dd HH:mm:ss' }}</time>
                } @else {
                  <span class="state-open"
                    ><span aria-hidden="true">● </span>{{ 'incidents.table.open' | transloco }}</span
                  >
                }
              </td>
              <td role="cell" class="duration" [attr.data-label]="'incidents.table.duration' | transloco">
                <time [attr.datetime]="row.durationIso">{{ row.duration }}</time>
              </td>
              <td role="cell" class="cause" [attr.data-label]="'incidents.table.cause' | transloco">
                {{ row.incident.cause }}
              </td>
              <td
                role="cell"
                class="ack"
                data-testid="incident-ack"
                [attr.data-label]="'incidents.table.acknowledged' | transloco"
              >
                <div>
                  @if (row.incident.acknowledged) {
                    <span
                      >{{ by().before
                      }}<strong>{{
                        row.incident.acknowledged_by ?? ('incidents.table.unknownUser' | transloco)
                      }}</strong
                      >{{ by().after }}</span
                    >
                    @if (row.incident.note) {
                      <span class="note">{{
                        'incidents.table.note' | transloco: { note: row.incident.note }
                      }}</span>
                    }
                  } @else if (row.open) {
                    <span class="muted">{{ 'incidents.table.notAcknowledged' | transloco }}</span>
                  } @else {
                    <span class="muted">—</span>
                  }
                </div>
              </td>
              @if (canAcknowledge()) {
                <td role="cell" class="actions">
                  @if (row.open && !row.incident.acknowledged) {
                    <button
                      type="button"
                      class="button button-small"
                      [attr.data-incident-action]="row.incident.id"
                      [attr.aria-expanded]="noteFor() === row.incident.id"
                      [attr.aria-label]="
                        'incidents.table.acknowledgeIncident' | transloco: { id: row.incident.id }
                      "
                      [disabled]="busy()"
                      (click)="toggleNote(row.incident)"
                    >
                      {{ 'incidents.table.acknowledge' | transloco }}
                    </button>
                  } @else if (row.open && row.incident.acknowledged) {
                    <button
                      type="button"
                      class="button button-small"
                      [attr.data-incident-action]="row.incident.id"
                      [attr.aria-label]="
                        'incidents.table.unacknowledgeIncident' | transloco: { id: row.incident.id }
                      "
                      [disabled]="busy()"
                      (click)="unacknowledgeRow(row.incident)"
                    >
                      {{ 'incidents.table.unacknowledge' | transloco }}
                    </button>
                  }
                </td>
              }
            </tr>
            @if (canAcknowledge() && noteFor() === row.incident.id) {
              <tr role="row" class="note-row">
                <td role="cell" [attr.colspan]="columns()">
                  <form
                    class="ack-form"
                    [attr.data-testid]="'ack-form-' + row.incident.id"
                    (submit)="confirm($event, row.incident)"
                  >
                    <label class="note-label" [for]="'ack-note-' + row.incident.id">
                      {{ 'incidents.table.noteLabel' | transloco: { id: row.incident.id } }}
                      <span class="muted">{{ 'incidents.table.optional' | transloco }}</span>
                    </label>
                    <input
                      class="input"
                      type="text"
                      maxlength="500"
                      autocomplete="off"
                      [id]="'ack-note-' + row.incident.id"
                      [value]="note()"
                      (input)="note.set(value($event))"
                    />
                    <span class="buttons">
                      <button type="submit" class="button button-small button-primary" [disabled]="busy()">
                        {{ 'incidents.table.acknowledge' | transloco }}
                      </button>
                      <button type="button" class="button button-small" (click)="cancel(row.incident)">
                        {{ 'common.actions.cancel' | transloco }}
                      </button>
                    </span>
                  </form>
                </td>
              </tr>
            }
          }
        </tbody>
      </table>
    </div>
  `,
  styleUrl: './incident-table.component.css',
})
export class IncidentTableComponent {
  private readonly now = inject(CLOCK);
  private readonly focus = injectFocus();

  readonly incidents = input.required<readonly Incident[]>();
  /** The table's accessible name; "Incidents" when not given. */
  readonly caption = input<string>();
  /** Unique on the page. */
  readonly captionId = input('incident-table-caption');
  readonly showSensor = input(true);
  readonly canAcknowledge = input(false);
  /** True while an acknowledgement call is in flight. */
  readonly busy = input(false);

  readonly acknowledge = output<AcknowledgeRequest>();
  readonly unacknowledge = output<Incident>();

  /** The incident whose note form is open. */
  protected readonly noteFor = signal<number | undefined>(undefined);
  protected readonly note = signal('');
  /** Whose action button gets the focus once the changed incident comes back. */
  private focusAfterChange: number | undefined;

  /** "by {user}" around the user's name, which is shown in bold. */
  protected readonly by = computed(() => around('incidents.table.acknowledgedBy', 'user'));

  protected readonly columns = computed(
    () => 5 + (this.showSensor() ? 1 : 0) + (this.canAcknowledge() ? 1 : 0),
  );

  protected readonly rows = computed(() => {
    const now = this.now().getTime();
    return this.incidents().map((incident) => {
      const end = incident.resolved_at ? Date.parse(incident.resolved_at) : now;
      const seconds = Math.max(0, (end - Date.parse(incident.started_at)) / 1000);
      return {
        incident,
        open: !incident.resolved_at,
        duration: formatDuration(seconds),
        durationIso: isoDuration(seconds),
      };
    });
  });

  constructor() {
    effect(() => {
      this.incidents();
      const id = untracked(() => this.focusAfterChange);
      if (id === undefined) return;
      this.focusAfterChange = undefined;
      this.focus(`[data-incident-action="${id}"]`);
    });
  }

  protected value(event: Event): string {
    return inputValue(event);
  }

  /** Opens the note form under the incident's row, or closes it when it is open. */
  protected toggleNote(incident: Incident): void {
    if (this.noteFor() === incident.id) {
      this.noteFor.set(undefined);
      return;
    }
    this.note.set('');
    this.noteFor.set(incident.id);
    this.focus(`#ack-note-${incident.id}`);
  }

  protected cancel(incident: Incident): void {
    this.noteFor.set(undefined);
    this.focus(`[data-incident-action="${incident.id}"]`);
  }

  protected confirm(event: Event, incident: Incident): void {
    event.preventDefault();
    this.focusAfterChange = incident.id;
    this.acknowledge.emit({ incident, note: this.note() });
    this.noteFor.set(undefined);
  }

  protected unacknowledgeRow(incident: Incident): void {
    this.focusAfterChange = incident.id;
    this.unacknowledge.emit(incident);
  }
}
