import { computed, signal } from '@angular/core';
import { ApiCallError } from '../../core/api/api-call-error';
import { t } from '../../core/i18n/i18n';

/**
 * What stands behind a credential's buttons (the API key, the metrics token): the change waiting
 * for confirmation, one change at a time, and what the last change or copy came to.
 */
export class CredentialChange {
  readonly confirming = signal<'rotate' | 'remove' | undefined>(undefined);
  readonly busy = signal(false);
  /** Catalogue key of the last outcome. */
  private readonly status = signal<string | undefined>(undefined);
  readonly statusText = computed(() => {
    const key = this.status();
    return key ? t(key) : '';
  });
  /** A server refusal (verbatim), or `copy` when the browser refused the clipboard. */
  private readonly error = signal<{ server: string } | 'copy' | undefined>(undefined);
  readonly errorText = computed(() => {
    const error = this.error();
    return error === 'copy' ? t(this.keys.copyFailed) : error?.server;
  });

  /** `keys`: the catalogue keys said after a copy and when the clipboard refused it. */
  constructor(private readonly keys: { readonly copied: string; readonly copyFailed: string }) {}

  async copy(text: string): Promise<void> {
    this.error.set(undefined);
    try {
      await navigator.clipboard.writeText(text);
      this.status.set(this.keys.copied);
    } catch {
      this.status.set(undefined);
      this.error.set('copy');
    }
  }

  /** Runs one change; `change` answers the catalogue key of its outcome. */
  async run(change: () => Promise<string>): Promise<void> {
    this.busy.set(true);
    this.error.set(undefined);
    this.status.set(undefined);
    try {
      this.status.set(await change());
      this.confirming.set(undefined);
    } catch (failure: unknown) {
      this.error.set({ server: ApiCallError.from(failure).message });
    } finally {
      this.busy.set(false);
    }
  }
}
