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

import { ApiCallError } from '../../core/api/api-call-error';
import { crontabLine, curlLine, pushUrl } from './push-lines';
import { SensorEditorApi } from './sensor-editor.api';

type Line = 'url' | 'curl' | 'crontab';

/**
 * A push sensor's URL with copy buttons and ready-made curl and crontab lines. The token is known
 * only right after create or rotate; otherwise the URL shows it masked and Rotate makes a new one.
 */
@Component({
  selector: 'app-push-url',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [TranslocoPipe],
  template: `
    <section class="panel push" data-testid="push-panel" aria-labelledby="push-heading">
      <h2 id="push-heading">{{ 'editor.push.heading' | transloco }}</h2>
      @if (token()) {
        <p class="hint" data-testid="push-token-once">{{ 'editor.push.shownOnce' | transloco }}</p>
      } @else {
        <p class="hint" data-testid="push-token-masked">{{ 'editor.push.masked' | transloco }}</p>
      }
      @for (line of lines(); track line.kind) {
        <div class="line">
          <span class="label" [id]="'push-' + line.kind + '-label'">{{
            'editor.push.' + line.kind | transloco
          }}</span>
          <code
            [attr.data-testid]="'push-' + line.kind"
            [attr.aria-labelledby]="'push-' + line.kind + '-label'"
            >{{ line.text }}</code
          >
          @if (token()) {
            <button
              type="button"
              class="button"
              [attr.data-testid]="'copy-' + line.kind"
              (click)="copy(line.text)"
            >
              {{ 'editor.push.copy' | transloco }}
            </button>
          }
        </div>
      }
      <p class="status" role="status" data-testid="push-copy-status">
        {{ copied() ? ('editor.push.' + copied() | transloco) : '' }}
      </p>
      @if (!readOnly()) {
        @if (confirming()) {
          <div class="confirm" data-testid="confirm-rotate">
            <p>{{ 'editor.push.rotateConfirm' | transloco }}</p>
            <p class="buttons">
              <button
                type="button"
                class="button button-primary button-danger"
                [disabled]="busy()"
                (click)="rotate()"
              >
                {{ 'editor.push.rotateNow' | transloco }}
              </button>
              <button type="button" class="button" (click)="confirming.set(false)">
                {{ 'common.actions.cancel' | transloco }}
              </button>
            </p>
          </div>
        } @else {
          <p class="buttons">
            <button type="button" class="button" data-testid="rotate-token" (click)="confirming.set(true)">
              {{ 'editor.push.rotate' | transloco }}
            </button>
          </p>
        }
      }
      @if (failure(); as message) {
        <p class="form-error" role="alert">{{ message }}</p>
      }
    </section>
  `,
  styles: `
    .push {
      display: grid;
      gap: 0.6rem;
    }
    h2,
    p {
      margin: 0;
    }
    .line {
      display: grid;
      grid-template-columns: minmax(0, 1fr) auto;
      gap: 0.25rem 0.5rem;
      align-items: center;
    }
    .label {
      grid-column: 1 / -1;
      font-weight: 600;
    }
    code {
      overflow-wrap: anywhere;
      padding: 0.3rem 0.5rem;
      border: 1px solid var(--border-strong);
      border-radius: var(--radius);
      min-inline-size: 0;
    }
    .buttons {
      display: flex;
      flex-wrap: wrap;
      gap: 0.5rem;
    }
  `,
})
export class PushUrlComponent {
  private readonly api = inject(SensorEditorApi);

  readonly sensorId = input.required<number>();
  readonly interval = input.required<number>();
  /** The token, when this page knows it (right after create). */
  readonly initialToken = input<string | undefined>(undefined);
  readonly readOnly = input(false);

  protected readonly token = linkedSignal(() => this.initialToken());
  /** The URL the server built from base_url, when it answered one (rotate). */
  private readonly serverUrl = signal<string | undefined>(undefined);
  protected readonly confirming = signal(false);
  protected readonly busy = signal(false);
  protected readonly failure = signal<string | undefined>(undefined);
  protected readonly copied = signal<'copied' | 'copyFailed' | undefined>(undefined);

  protected readonly lines = computed(() => {
    const url = this.serverUrl() ?? pushUrl(location.origin, this.token());
    return [
      { kind: 'url' as Line, text: url },
      { kind: 'curl' as Line, text: curlLine(url) },
      { kind: 'crontab' as Line, text: crontabLine(url, this.interval()) },
    ];
  });

  protected async copy(text: string): Promise<void> {
    this.copied.set(undefined);
    try {
      await navigator.clipboard.writeText(text);
      this.copied.set('copied');
    } catch {
      this.copied.set('copyFailed');
    }
  }

  protected async rotate(): Promise<void> {
    this.busy.set(true);
    this.failure.set(undefined);
    try {
      const answer = await this.api.rotatePushToken(this.sensorId());
      this.token.set(answer.token);
      this.serverUrl.set(answer.url);
      this.copied.set(undefined);
      this.confirming.set(false);
    } catch (failure: unknown) {
      this.failure.set(ApiCallError.from(failure).message);
    } finally {
      this.busy.set(false);
    }
  }
}
