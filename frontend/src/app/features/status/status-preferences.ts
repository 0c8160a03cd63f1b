import { Injectable, computed, inject, signal } from '@angular/core';
import type { Density, SensorOrder, UiSettings } from '@monitor/contracts';

import { ApiCallError } from '../../core/api/api-call-error';
import { SessionStore } from '../../core/session/session.store';
import { StatusApi } from './status.api';

type Choice = Pick<UiSettings, 'density' | 'order'>;

/**
 * The account's density and order of the status page, from the session's `ui` (read before the page
 * is drawn, so it opens in the right density). A change shows at once and is saved with
 * `PUT /api/settings`; when saving fails the earlier choice comes back and the error is shown.
 */
@Injectable()
export class StatusPreferences {
  private readonly api = inject(StatusApi);
  private readonly session = inject(SessionStore);
  private readonly chosen = signal<Partial<Choice>>({});
  private readonly failure = signal<string | undefined>(undefined);

  readonly density = computed<Density>(
    () => this.chosen().density ?? this.session.info()?.ui?.density ?? 'cards',
  );
  readonly order = computed<SensorOrder>(
    () => this.chosen().order ?? this.session.info()?.ui?.order ?? 'problems',
  );
  readonly error = this.failure.asReadonly();

  setDensity(density: Density): Promise<void> {
    return this.save({ density });
  }

  setOrder(order: SensorOrder): Promise<void> {
    return this.save({ order });
  }

  private async save(change: Partial<Choice>): Promise<void> {
    const before = this.chosen();
    this.chosen.set({ ...before, ...change });
    this.failure.set(undefined);
    try {
      await this.api.saveView(change);
      // Other pages and the next visit read the session's `ui`.
      await this.session.reload().catch(() => undefined);
    } catch (failure: unknown) {
      this.chosen.set(before);
      this.failure.set(ApiCallError.from(failure).message);
    }
  }
}
