import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { TranslocoPipe } from '@jsverse/transloco';

import { t } from '../../core/i18n/i18n';

import { ErrorAlertComponent } from '../../shared/ui/error-alert.component';
import { AdminStore } from './admin.store';

/** Runs the installation checks (`POST /api/doctor`, operators and administrators). */
@Component({
  selector: 'app-doctor-section',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [ErrorAlertComponent, TranslocoPipe],
  template: `
    <p class="hint">{{ 'admin.doctor.hint' | transloco }}</p>
    <p class="buttons">
      <button
        type="button"
        class="button button-primary"
        [disabled]="store.doctorBusy()"
        (click)="store.runDoctor()"
      >
        {{ (store.doctorBusy() ? 'admin.doctor.running' : 'admin.doctor.run') | transloco }}
      </button>
    </p>
    @if (store.doctorError(); as message) {
      <app-error-alert
        [heading]="'admin.doctor.failed' | transloco"
        [message]="message"
        [retryable]="false"
      />
    }
    <p class="status-line" role="status" data-testid="doctor-summary">{{ summary() }}</p>
    @if (store.report(); as report) {
      <ul class="checks" data-testid="doctor-checks">
        @for (check of report.checks; track $index) {
          <li class="check" [class.bad]="!check.ok" [attr.data-ok]="check.ok">
            <span class="mark" aria-hidden="true">{{ check.ok ? '✓' : '✗' }}</span>
            <span class="verdict">{{
              (check.ok ? 'admin.doctor.ok' : 'admin.doctor.problem') | transloco
            }}</span>
            <span class="name">{{ check.name }}</span>
            @if (check.detail) {
              <span class="detail">{{ check.detail }}</span>
            }
          </li>
        }
      </ul>
    }
  `,
  styles: `
    :host {
      display: grid;
      grid-template-columns: minmax(0, 1fr);
      gap: 0.9rem;
    }
    .checks {
      display: grid;
      gap: 0.4rem;
      margin: 0;
      padding: 0;
      list-style: none;
    }
    .check {
      display: grid;
      grid-template-columns: auto auto minmax(0, 1fr);
      align-items: baseline;
      gap: 0.1rem 0.6rem;
      padding: 0.45rem 0.7rem;
      border: 1px solid var(--border);
      border-inline-start: 4px solid var(--success);
      border-radius: var(--radius);
    }
    .check.bad {
      border-inline-start-color: var(--danger);
    }
    .mark {
      font-weight: 700;
      color: var(--success);
    }
    .bad .mark {
      color: var(--danger);
    }
    .verdict,
    .name {
      font-weight: 600;
    }
    .detail {
      grid-column: 3;
      color: var(--text-muted);
      overflow-wrap: anywhere;
    }
  `,
})
export class DoctorSectionComponent {
  protected readonly store = inject(AdminStore);

  protected readonly summary = computed(() => {
    const report = this.store.report();
    if (!report) return '';
    const problems = report.checks.filter((check) => !check.ok).length;
    if (problems === 0) return t('admin.doctor.passed', { count: report.checks.length });
    return t('admin.doctor.problems', { count: problems });
  });
}
