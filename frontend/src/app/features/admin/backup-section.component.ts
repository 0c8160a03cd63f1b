import { ChangeDetectionStrategy, Component, computed, signal } from '@angular/core';
import { TranslocoPipe } from '@jsverse/transloco';

import { inputValue } from '../../shared/forms/form-helpers';
import { BACKUP_DAYS, type BackupDays, type BackupScope, backupUrl } from './admin.models';

/** Catalogue keys of the history choices, translated where shown. */
const DAY_LABELS: Readonly<Record<BackupDays, string>> = {
  '7': 'admin.backup.days.last7',
  '30': 'admin.backup.days.last30',
  '90': 'admin.backup.days.last90',
  all: 'admin.backup.days.all',
};

/** Downloads a backup document: the configuration, or the configuration with history. */
@Component({
  selector: 'app-backup-section',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [TranslocoPipe],
  template: `
    <div class="form">
      <fieldset class="field">
        <legend>{{ 'admin.backup.include' | transloco }}</legend>
        <label class="choice">
          <input
            type="radio"
            name="backup-scope"
            value="config"
            [checked]="scope() === 'config'"
            (change)="setScope($event)"
          />
          <span class="choice-label">{{ 'admin.backup.config' | transloco }}</span>
          <span class="hint">{{ 'admin.backup.configHint' | transloco }}</span>
        </label>
        <label class="choice">
          <input
            type="radio"
            name="backup-scope"
            value="history"
            [checked]="scope() === 'history'"
            (change)="setScope($event)"
          />
          <span class="choice-label">{{ 'admin.backup.history' | transloco }}</span>
          <span class="hint">{{ 'admin.backup.historyHint' | transloco }}</span>
        </label>
      </fieldset>
      @if (scope() === 'history') {
        <div class="field">
          <label for="backup-days">{{ 'admin.backup.historyOf' | transloco }}</label>
          <select id="backup-days" class="select" (change)="setDays($event)">
            @for (option of days; track option) {
              <option [value]="option" [selected]="option === chosenDays()">
                {{ dayLabels[option] | transloco }}
              </option>
            }
          </select>
        </div>
      }
      <p class="notice warning" id="backup-secrets">
        <strong>{{ 'admin.backup.keepSafe' | transloco }}</strong>
        {{ 'admin.backup.secrets' | transloco }}
      </p>
      <p class="buttons">
        <a
          class="button button-primary"
          download
          data-testid="backup-download"
          aria-describedby="backup-secrets"
          [href]="url()"
        >
          {{ 'admin.backup.download' | transloco }}
        </a>
      </p>
    </div>
  `,
  styles: `
    fieldset.field {
      gap: 0.5rem;
    }
    .warning {
      border-inline-start-color: var(--danger);
    }
  `,
})
export class BackupSectionComponent {
  protected readonly days = BACKUP_DAYS;
  protected readonly dayLabels = DAY_LABELS;
  protected readonly scope = signal<BackupScope>('config');
  protected readonly chosenDays = signal<BackupDays>('30');
  protected readonly url = computed(() => backupUrl(this.scope(), this.chosenDays()));

  protected setScope(event: Event): void {
    this.scope.set(inputValue(event) === 'history' ? 'history' : 'config');
  }

  protected setDays(event: Event): void {
    const value = BACKUP_DAYS.find((option) => option === inputValue(event));
    if (value) this.chosenDays.set(value);
  }
}
