import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { TranslocoPipe } from '@jsverse/transloco';

import { ServerHealth } from '../../core/shell/server-health.service';
import { formatDuration, isoDuration } from '../../shared/format/duration';

/**
 * The monitor service's own health, as the header's indicator last checked it (`GET /healthz`): its
 * status, version and uptime, when it was checked, and "Check again".
 */
@Component({
  selector: 'app-server-health-panel',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [DatePipe, TranslocoPipe],
  template: `
    <section class="panel" aria-labelledby="health-heading" data-testid="health-panel">
      <div class="heading">
        <h2 id="health-heading">{{ 'about.health.heading' | transloco }}</h2>
        <button type="button" class="button" [disabled]="health.checking()" (click)="health.refresh()">
          {{ (health.checking() ? 'about.health.checking' : 'about.health.checkAgain') | transloco }}
        </button>
      </div>
      <p class="verdict" [attr.data-state]="view().state" data-testid="health-verdict">
        <span class="icon" aria-hidden="true">{{ view().symbol }}</span>
        <span>{{ 'about.health.' + view().state | transloco }}</span>
      </p>
      @if (view().error; as error) {
        <p class="error" data-testid="health-error">{{ error }}</p>
      }
      @if (view().answer; as answer) {
        <dl class="facts">
          <div>
            <dt>{{ 'about.health.status' | transloco }}</dt>
            <dd data-testid="health-status">{{ answer.status }}</dd>
          </div>
          <div>
            <dt>{{ 'about.health.version' | transloco }}</dt>
            <dd data-testid="health-version">{{ answer.version }}</dd>
          </div>
          <div>
            <dt>{{ 'about.health.uptime' | transloco }}</dt>
            <dd data-testid="health-uptime">
              <time [attr.datetime]="answer.uptimeIso">{{ answer.uptime }}</time>
            </dd>
          </div>
        </dl>
      }
      @if (view().checkedAt; as checkedAt) {
        <p class="checked" data-testid="health-checked-at">
          {{ 'about.health.checkedAt' | transloco }}
          <time [attr.datetime]="checkedAt.toISOString()">{{ checkedAt | date: 'HH:mm:ss' }}</time>
        </p>
      }
    </section>
  `,
  styles: `
    .heading {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      justify-content: space-between;
      gap: 0.5rem 1rem;
    }
    h2 {
      margin: 0;
      font-size: 1.1rem;
    }
    .verdict {
      display: flex;
      align-items: center;
      gap: 0.6rem;
      margin: 1rem 0;
      font-size: 1.1rem;
      font-weight: 600;
    }
    .icon {
      display: grid;
      flex: none;
      place-items: center;
      inline-size: 1.6rem;
      block-size: 1.6rem;
      border-radius: 50%;
      background: var(--border-strong);
      line-height: 1;
    }
    [data-state='ok'] .icon {
      background: var(--success);
      color: var(--on-success);
    }
    [data-state='unanswered'] .icon,
    [data-state='failing'] .icon {
      background: var(--danger);
      color: var(--on-danger);
    }
    .error {
      margin: 0 0 1rem;
      color: var(--text-muted);
    }
    .checked {
      margin: 1rem 0 0;
      color: var(--text-muted);
      font-size: 0.9rem;
    }
  `,
})
export class ServerHealthPanelComponent {
  protected readonly health = inject(ServerHealth);

  protected readonly view = computed(() => {
    const check = this.health.check();
    const answer = check.health;
    return {
      state: check.state,
      symbol: check.state === 'ok' ? '✓' : check.state === 'unknown' ? '…' : '!',
      error: check.error?.message,
      answer: answer && {
        status: answer.status,
        version: answer.version,
        uptime: formatDuration(answer.uptime),
        uptimeIso: isoDuration(answer.uptime),
      },
      checkedAt: check.checkedAt,
    };
  });

  constructor() {
    this.health.retain();
  }
}
