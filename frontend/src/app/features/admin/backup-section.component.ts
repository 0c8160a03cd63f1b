import { ChangeDetectionStrategy, Component, computed, signal } from '@angular/core';

import { inputValue } from '../../shared/forms/form-helpers';
import { BACKUP_DAYS, type BackupDays, type BackupScope, backupUrl } from './admin.models';

const DAY_LABELS: Readonly<Record<BackupDays, string>> = {
  '7': 'The last 7 days',
  '30': 'The last 30 days',
  '90': 'The last 90 days',
  all: 'All of it',
};

/** Downloads a backup document: the configuration, or the configuration with history. */
@Component({
  selector: 'app-backup-section',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <div class="form">
      <fieldset class="field">
        <legend>What to include</legend>
        <label class="choice">
          <input
            type="radio"
            name="backup-scope"
            value="config"
            [checked]="scope() === 'config'"
            (change)="setScope($event)"
          />
          <span class="choice-label">Configuration</span>
          <span class="hint">Settings, sites, sensors, channels and accounts.</span>
        </label>
        <label class="choice">
          <input
            type="radio"
            name="backup-scope"
            value="history"
            [checked]="scope() === 'history'"
            (change)="setScope($event)"
          />
          <span class="choice-label">Configuration and history</span>
          <span class="hint">Also incidents and the hourly and daily figures.</span>
        </label>
      </fieldset>
      @if (scope() === 'history') {
        <div class="field">
          <label for="backup-days">History of</label>
          <select id="backup-days" class="select" (change)="setDays($event)">
            @for (option of days; track option) {
              <option [value]="option" [selected]="option === chosenDays()">{{ dayLabels[option] }}</option>
            }
          </select>
        </div>
      }
      <p class="notice warning" id="backup-secrets">
        <strong>Keep the file safe:</strong> it holds every secret in clear text (password hashes, the API
        key, channel credentials, the tile URL).
      </p>
      <p class="buttons">
        <a
          class="button button-primary"
          download
          data-testid="backup-download"
          aria-describedby="backup-secrets"
          [href]="url()"
        >
          Download backup
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
