import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, input } from '@angular/core';
import { TranslocoPipe } from '@jsverse/transloco';
import type { ProbeResult } from '@monitor/contracts';

import { formatLatency } from '../../shared/format/latency';

/** The latest raw probe results of a sensor, newest first. */
@Component({
  selector: 'app-recent-results',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [DatePipe, TranslocoPipe],
  template: `
    <div class="table-scroll" role="region" tabindex="0" aria-labelledby="results-caption">
      <table class="data-table" role="table" data-testid="results-table">
        <caption id="results-caption" class="visually-hidden">
          {{
            'sensorDetail.results.caption' | transloco
          }}
        </caption>
        <thead role="rowgroup">
          <tr role="row">
            <th scope="col" role="columnheader">{{ 'sensorDetail.results.time' | transloco }}</th>
            <th scope="col" role="columnheader">{{ 'sensorDetail.results.result' | transloco }}</th>
            <th scope="col" role="columnheader">{{ 'sensorDetail.results.statusCode' | transloco }}</th>
            <th scope="col" role="columnheader" class="number">
              {{ 'sensorDetail.results.latency' | transloco }}
            </th>
            <th scope="col" role="columnheader">{{ 'sensorDetail.results.message' | transloco }}</th>
          </tr>
        </thead>
        <tbody role="rowgroup">
          @for (result of results(); track $index) {
            <tr role="row">
              <td role="cell" class="when" [attr.data-label]="'sensorDetail.results.time' | transloco">
                <time [attr.datetime]="result.ts">{{ result.ts | date: 'yyyy-MM-dd HH:mm:ss' }}</time>
              </td>
              <td
                role="cell"
                class="outcome"
                [attr.data-label]="'sensorDetail.results.result' | transloco"
                [class.ok]="result.success"
                [class.fail]="!result.success"
              >
                <span
                  ><span aria-hidden="true">{{ result.success ? '✓' : '✕' }} </span
                  >{{
                    (result.success ? 'sensorDetail.probe.ok' : 'sensorDetail.probe.fail') | transloco
                  }}</span
                >
              </td>
              <td role="cell" [attr.data-label]="'sensorDetail.results.statusCode' | transloco">
                {{ result.status_code ?? '—' }}
              </td>
              <td role="cell" class="number" [attr.data-label]="'sensorDetail.results.latency' | transloco">
                {{ result.latency_ms === null ? '—' : latency(result.latency_ms) }}
              </td>
              <td role="cell" class="message" [attr.data-label]="'sensorDetail.results.message' | transloco">
                {{ result.message || '—' }}
              </td>
            </tr>
          }
        </tbody>
      </table>
    </div>
  `,
  styles: `
    th,
    td {
      padding: 0.4rem 0.6rem;
    }
    .when,
    .outcome,
    .number {
      white-space: nowrap;
    }
    .number {
      text-align: end;
      font-variant-numeric: tabular-nums;
    }
    .ok {
      color: var(--success);
      font-weight: 600;
    }
    .fail {
      color: var(--danger);
      font-weight: 600;
    }
    .message {
      min-inline-size: 12rem;
      overflow-wrap: anywhere;
    }
    /* Phones (the stacking itself is the global .data-table's): the numbers align like the rest. */
    @media (max-width: 40rem) {
      tr {
        padding-block: 0.45rem;
        border-block-end: 1px solid var(--border);
      }
      td,
      .number {
        padding: 0.1rem 0;
        text-align: start;
        white-space: normal;
      }
    }
  `,
})
export class RecentResultsComponent {
  readonly results = input.required<readonly ProbeResult[]>();

  protected latency(ms: number): string {
    return formatLatency(ms);
  }
}
