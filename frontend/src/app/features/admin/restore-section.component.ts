import {
  ChangeDetectionStrategy,
  Component,
  ElementRef,
  computed,
  inject,
  signal,
  viewChild,
} from '@angular/core';
import { TranslocoPipe } from '@jsverse/transloco';

import { formatNumber } from '../../core/i18n/format';
import { t } from '../../core/i18n/i18n';
import { ConfirmDialogComponent } from '../../shared/ui/confirm-dialog.component';
import { ErrorAlertComponent } from '../../shared/ui/error-alert.component';
import { AdminStore } from './admin.store';

/**
 * Restores a backup document: choose the file, confirm in a dialog that it replaces data, then
 * `POST /api/restore` with the file as the raw JSON body. Shows what each table received, the
 * safety copy and, when accounts came back, that other sessions may have to sign in again.
 */
@Component({
  selector: 'app-restore-section',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [ConfirmDialogComponent, ErrorAlertComponent, TranslocoPipe],
  template: `
    <div class="field">
      <label for="restore-file">{{ 'admin.restore.file' | transloco }}</label>
      <input
        #fileInput
        id="restore-file"
        class="input"
        type="file"
        accept=".json,application/json"
        aria-describedby="restore-hint"
        [disabled]="store.restoreBusy()"
        (change)="chosen($event)"
      />
      <p class="hint" id="restore-hint">{{ 'admin.restore.fileHint' | transloco }}</p>
    </div>

    <app-confirm-dialog
      headingId="restore-dialog-heading"
      [heading]="'admin.restore.dialogHeading' | transloco: { file: file()?.name ?? '' }"
      [confirmLabel]="'admin.restore.replace' | transloco"
      [danger]="true"
      (closed)="closed($event)"
    >
      <p>
        <strong>{{ 'admin.restore.replaced' | transloco }}</strong>
        {{ 'admin.restore.copyFirst' | transloco }}
      </p>
    </app-confirm-dialog>

    <p class="status-line" role="status" data-testid="restore-status">{{ progress() }}</p>
    @if (store.restoreError(); as message) {
      <app-error-alert
        [heading]="'admin.restore.failed' | transloco"
        [message]="message"
        [retryable]="false"
      />
    }
    @if (store.restoreResult(); as result) {
      <div class="result" data-testid="restore-result">
        <table class="counts" data-testid="restore-counts">
          <caption class="visually-hidden">
            {{
              'admin.restore.caption' | transloco
            }}
          </caption>
          <thead>
            <tr>
              <th scope="col">{{ 'admin.restore.table' | transloco }}</th>
              <th scope="col">{{ 'admin.restore.rows' | transloco }}</th>
            </tr>
          </thead>
          <tbody>
            @for (row of counts(); track row.table) {
              <tr>
                <th scope="row">{{ row.table }}</th>
                <td>{{ row.rows }}</td>
              </tr>
            }
          </tbody>
        </table>
        <p>
          {{ 'admin.restore.safetyCopy' | transloco }}
          <span class="mono" data-testid="restore-safety-copy">{{ result.safety_copy }}</span>
        </p>
        @if (result.token_epoch_notice) {
          <p class="notice" data-testid="restore-epoch-notice">
            {{ 'admin.restore.epochNotice' | transloco }}
          </p>
        }
      </div>
    }
  `,
  styles: `
    :host {
      display: grid;
      grid-template-columns: minmax(0, 1fr);
      gap: 0.9rem;
    }
    .result {
      display: grid;
      gap: 0.6rem;
    }
    .result p {
      margin: 0;
      overflow-wrap: anywhere;
    }
    .counts {
      justify-self: start;
      border-collapse: collapse;
      min-inline-size: min(100%, 18rem);
    }
    .counts th,
    .counts td {
      padding: 0.3rem 0.75rem 0.3rem 0;
      border-block-end: 1px solid var(--border);
      text-align: start;
    }
    .counts td {
      text-align: end;
      font-variant-numeric: tabular-nums;
    }
    .counts tbody th {
      font-weight: 500;
    }
  `,
})
export class RestoreSectionComponent {
  protected readonly store = inject(AdminStore);
  private readonly dialog = viewChild.required(ConfirmDialogComponent);
  private readonly fileInput = viewChild.required<ElementRef<HTMLInputElement>>('fileInput');

  protected readonly file = signal<File | undefined>(undefined);

  protected readonly progress = computed(() => {
    if (this.store.restoreBusy()) return t('admin.restore.restoring');
    return this.store.restoreResult() ? t('admin.restore.restored') : '';
  });

  protected readonly counts = computed(() =>
    Object.entries(this.store.restoreResult()?.counts ?? {}).map(([table, rows]) => ({
      table,
      rows: formatNumber(rows),
    })),
  );

  protected chosen(event: Event): void {
    const file = (event.target as HTMLInputElement).files?.[0];
    if (!file) return;
    this.file.set(file);
    this.dialog().open();
  }

  /** The dialog closed (confirmed, cancelled or Escape): restore if confirmed, and forget the file. */
  protected closed(confirmed: boolean): void {
    const file = this.file();
    const restore = confirmed && file !== undefined;
    this.file.set(undefined);
    // Choosing the same file again must fire another change event.
    this.fileInput().nativeElement.value = '';
    this.fileInput().nativeElement.focus();
    if (restore) void this.store.restore(file);
  }
}
