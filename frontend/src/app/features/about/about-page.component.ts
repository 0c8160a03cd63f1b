import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { TranslocoPipe } from '@jsverse/transloco';
import type { BuildChannel } from '@monitor/contracts';

import { loadable } from '../../core/api/loadable';
import { t } from '../../core/i18n/i18n';
import { PRODUCT_NAME } from '../../core/title/page-title.strategy';
import { ErrorAlertComponent } from '../../shared/ui/error-alert.component';
import { LoadingIndicatorComponent } from '../../shared/ui/loading-indicator.component';
import { AboutApi } from './about.api';
import { ServerHealthPanelComponent } from './server-health-panel.component';

const CHANNELS: readonly BuildChannel[] = ['release', 'dev', 'local'];

/**
 * `/settings/about`: which build of Monitor is running, from `GET /api/version`, and the server's own
 * health (the header's indicator links here).
 */
@Component({
  selector: 'app-about-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [ErrorAlertComponent, LoadingIndicatorComponent, ServerHealthPanelComponent, TranslocoPipe],
  template: `
    <div class="page-heading">
      <h1>{{ 'about.title' | transloco }}</h1>
    </div>

    @if (version.error(); as error) {
      <app-error-alert
        [heading]="'about.loadFailed' | transloco"
        [message]="error.message"
        (retry)="version.reload()"
      />
    } @else if (version.value(); as info) {
      <section class="panel" aria-labelledby="about-heading" data-testid="about-panel">
        <h2 id="about-heading">{{ productName }}</h2>
        <p class="lead">{{ 'about.lead' | transloco }}</p>
        <dl class="facts">
          <div>
            <dt>{{ 'about.version' | transloco }}</dt>
            <dd data-testid="about-version">{{ info.version }}</dd>
          </div>
          <div>
            <dt>{{ 'about.build' | transloco }}</dt>
            <dd data-testid="about-build">{{ info.build }}</dd>
          </div>
          <div>
            <dt>{{ 'about.commit' | transloco }}</dt>
            <dd class="mono" data-testid="about-commit">{{ info.commit }}</dd>
          </div>
          <div>
            <dt>{{ 'about.buildDate' | transloco }}</dt>
            <dd data-testid="about-build-date">{{ info.build_date }}</dd>
          </div>
          <div>
            <dt>{{ 'about.channel' | transloco }}</dt>
            <dd>
              <span class="badge" [attr.data-channel]="info.channel" data-testid="about-channel">{{
                info.channel
              }}</span>
              @if (channelHint(); as hint) {
                <span class="hint">{{ hint }}</span>
              }
            </dd>
          </div>
        </dl>
      </section>
    } @else {
      <app-loading-indicator [label]="'about.loading' | transloco" />
    }

    <app-server-health-panel class="health" />
  `,
  styles: `
    .health {
      display: block;
      margin-block-start: 1.25rem;
    }
    h2 {
      margin: 0;
      font-size: 1.1rem;
    }
    .lead {
      margin: 0.25rem 0 1.25rem;
      color: var(--text-muted);
    }
    .badge {
      display: inline-block;
      padding: 0.05rem 0.55rem;
      border: 1px solid var(--border-strong);
      border-radius: 999px;
      font-size: 0.85rem;
      font-weight: 600;
    }
    .hint {
      margin-inline-start: 0.5rem;
      color: var(--text-muted);
      font-size: 0.9rem;
    }
  `,
})
export class AboutPageComponent {
  private readonly api = inject(AboutApi);
  protected readonly productName = PRODUCT_NAME;

  protected readonly version = loadable(() => this.api.version());

  protected readonly channelHint = computed(() => {
    const channel = this.version.value()?.channel;
    return channel && CHANNELS.includes(channel) ? t(`about.channels.${channel}`) : undefined;
  });
}
