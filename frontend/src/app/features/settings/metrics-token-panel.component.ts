import { DOCUMENT } from '@angular/common';
import {
  ChangeDetectionStrategy,
  Component,
  computed,
  inject,
  input,
  linkedSignal,
  signal,
} from '@angular/core';
import { TranslocoPipe } from '@jsverse/transloco';
import type { MetricsTokenStatus } from '@monitor/contracts';

import { t } from '../../core/i18n/i18n';
import { ErrorAlertComponent } from '../../shared/ui/error-alert.component';
import { CredentialChange } from './credential-change';
import { SettingsApi } from './settings.api';
import { utcText } from './utc-time';

/** A Prometheus scrape job for this dashboard's address, reading the token from a file. */
export function scrapeConfig(location: Pick<Location, 'protocol' | 'host'>): string {
  return [
    'scrape_configs:',
    '  - job_name: monitor',
    `    scheme: ${location.protocol === 'https:' ? 'https' : 'http'}`,
    '    authorization:',
    '      type: Bearer',
    '      credentials_file: /etc/prometheus/monitor-metrics-token',
    '    static_configs:',
    `      - targets: ['${location.host}']`,
  ].join('\n');
}

/**
 * The read-only token Prometheus scrapes GET /metrics with: administrators make, replace and remove
 * it (a new token is shown once, with a scrape configuration to paste); others see whether one is set.
 */
@Component({
  selector: 'app-metrics-token-panel',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [ErrorAlertComponent, TranslocoPipe],
  template: `
    <section class="panel" aria-labelledby="metrics-token-heading" data-testid="metrics-token">
      <h2 id="metrics-token-heading">{{ 'settings.metricsToken.heading' | transloco }}</h2>
      <p class="lead">{{ 'settings.metricsToken.lead' | transloco }}</p>
      <p data-testid="metrics-token-state">{{ stateText() }}</p>
      @if (shown(); as token) {
        <div class="notice" data-testid="metrics-token-shown">
          <p>{{ 'settings.metricsToken.shownOnce' | transloco }}</p>
          <p class="key-line">
            <code class="mono key" data-testid="metrics-token-value">{{ token }}</code>
            <button type="button" class="button button-small" (click)="change.copy(token)">
              {{ 'settings.metricsToken.copy' | transloco }}
            </button>
          </p>
          <p>{{ 'settings.metricsToken.configLead' | transloco }}</p>
          <pre class="mono config" data-testid="metrics-scrape-config">{{ config }}</pre>
        </div>
      }
      @if (admin()) {
        @if (change.confirming(); as action) {
          <div class="notice" data-testid="metrics-token-confirm">
            <p>
              {{
                (action === 'rotate'
                  ? 'settings.metricsToken.confirmRotate'
                  : 'settings.metricsToken.confirmRemove'
                ) | transloco
              }}
            </p>
            <div class="buttons">
              <button
                type="button"
                class="button button-primary button-danger"
                [disabled]="change.busy()"
                (click)="action === 'rotate' ? rotate() : remove()"
              >
                {{
                  (action === 'rotate'
                    ? 'settings.metricsToken.rotateConfirmed'
                    : 'settings.metricsToken.removeConfirmed'
                  ) | transloco
                }}
              </button>
              <button type="button" class="button" (click)="change.confirming.set(undefined)">
                {{ 'common.actions.cancel' | transloco }}
              </button>
            </div>
          </div>
        } @else {
          <div class="buttons">
            @if (current()?.set) {
              <button type="button" class="button" (click)="change.confirming.set('rotate')">
                {{ 'settings.metricsToken.rotate' | transloco }}
              </button>
              <button type="button" class="button button-danger" (click)="change.confirming.set('remove')">
                {{ 'settings.metricsToken.remove' | transloco }}
              </button>
            } @else {
              <button type="button" class="button" [disabled]="change.busy()" (click)="rotate()">
                {{ 'settings.metricsToken.create' | transloco }}
              </button>
            }
          </div>
        }
        <p class="status-line" role="status" data-testid="metrics-token-status">{{ change.statusText() }}</p>
        @if (change.errorText(); as message) {
          <app-error-alert
            [heading]="'settings.metricsToken.changeFailed' | transloco"
            [message]="message"
            [retryable]="false"
          />
        }
      }
    </section>
  `,
  styles: `
    :host {
      display: block;
      min-width: 0;
    }
    h2 {
      margin: 0;
      font-size: 1.1rem;
    }
    .lead {
      margin: 0.25rem 0 1rem;
      color: var(--text-muted);
    }
    .key-line {
      display: flex;
      flex-wrap: wrap;
      gap: 0.5rem;
      align-items: center;
    }
    .key {
      overflow-wrap: anywhere;
    }
    .config {
      max-width: 100%;
      overflow-x: auto;
      margin: 0;
      padding: 0.5rem;
      border: 1px solid var(--border);
      border-radius: 4px;
      font-size: 0.85rem;
    }
  `,
})
export class MetricsTokenPanelComponent {
  private readonly api = inject(SettingsApi);

  /** What GET /api/settings says of the token. */
  readonly status = input<MetricsTokenStatus | undefined>();
  /** Administrators may change the token. */
  readonly admin = input(false);

  protected readonly current = linkedSignal(() => this.status());
  /** A token just made: shown until the page is left, never again. */
  protected readonly shown = signal<string | undefined>(undefined);
  protected readonly change = new CredentialChange({
    copied: 'settings.metricsToken.copied',
    copyFailed: 'settings.metricsToken.copyFailed',
  });
  protected readonly config = scrapeConfig(inject(DOCUMENT).location);
  protected readonly stateText = computed(() => {
    const current = this.current();
    if (!current) return '';
    if (!current.set) return t('settings.metricsToken.none');
    return current.created_at
      ? t('settings.metricsToken.setSince', { when: utcText(current.created_at) })
      : t('settings.metricsToken.set');
  });

  protected async rotate(): Promise<void> {
    const replacing = this.current()?.set === true;
    await this.change.run(async () => {
      const answer = await this.api.rotateMetricsToken();
      this.shown.set(answer.metrics_token);
      this.current.set({ set: true, created_at: answer.created_at });
      return replacing ? 'settings.metricsToken.rotated' : 'settings.metricsToken.created';
    });
  }

  protected async remove(): Promise<void> {
    await this.change.run(async () => {
      await this.api.removeMetricsToken();
      this.shown.set(undefined);
      this.current.set({ set: false, created_at: null });
      return 'settings.metricsToken.removed';
    });
  }
}
