import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, input } from '@angular/core';
import { TranslocoPipe } from '@jsverse/transloco';
import type { ProbeResult } from '@monitor/contracts';

import { formatLatency } from './latency';

/** The latest raw probe results of a sensor, newest first. */
@Component({
  selector: 'app-recent-results',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [DatePipe, TranslocoPipe],
  template: `
    <div class="table-scroll" role="region" tabindex="0" aria-labelledby="results-caption">
      <table data-testid="results-table">
        <caption id="results-caption" class="visually-hidden">
          {{
            'sensorDetail.results.caption' | transloco
          }}
        </caption>
        <thead>
          <tr>
            <th scope="col">{{ 'sensorDetail.results.time' | transloco }}</th>
            <th scope="col">{{ 'sensorDetail.results.result' | transloco }}</th>
            <th scope="col">{{ 'sensorDetail.results.statusCode' | transloco }}</th>
            <th scope="col" class="number">{{ 'sensorDetail.results.latency' | transloco }}</th>
            <th scope="col">{{ 'sensorDetail.results.message' | transloco }}</th>
          </tr>
        </thead>
        <tbody>
          @for (result of results(); track $index) {
            <tr>
              <td class="when">
                <time [attr.datetime]="result.ts">{{ result.ts | date: 'yyyy-MM-dd HH:mm:ss' }}</time>
              </td>
              <td class="outcome" [class.ok]="result.success" [class.fail]="!result.success">
                <span aria-hidden="true">{{ result.success ? '✓' : '✕' }} </span>{{
                  (result.success ? 'sensorDetail.probe.ok' : 'sensorDetail.probe.fail') | transloco
                }}
              </td>
              <td>{{ result.status_code ?? '—' }}</td>
              <td class="number">{{ result.latency_ms === null ? '—' : latency(result.latency_ms) }}</td>
              <td class="message">{{ result.message || '—' }}</td>
            </tr>
          }
        </tbody>
      </table>
    </div>
  `,
  styles: `
    /* Positioned, so that visually hidden text inside stays within the scrolling box. */
    .table-scroll {
      position: relative;
      overflow-x: auto;
      max-inline-size: 100%;
    }
    table {
      inline-size: 100%;
      border-collapse: collapse;
      font-size: 0.94rem;
    }
    th,
    td {
      padding: 0.4rem 0.6rem;
      border-block-end: 1px solid var(--border);
      text-align: start;
      vertical-align: top;
    }
    th {
      color: var(--text-muted);
      font-weight: 600;
      white-space: nowrap;
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
  `,
})
export class RecentResultsComponent {
  readonly results = input.required<readonly ProbeResult[]>();

  protected latency(ms: number): string {
    return formatLatency(ms);
  }
}
