import {
  ElementRef,
  Injector,
  type Signal,
  type WritableSignal,
  afterNextRender,
  computed,
  inject,
} from '@angular/core';

import { ApiCallError } from '../../core/api/api-call-error';
import { t } from '../../core/i18n/i18n';

/** The current text of the input, select or textarea an event came from. */
export function inputValue(event: Event): string {
  const target = event.target as HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement | null;
  return target?.value ?? '';
}

export const PASSWORD_MIN_CHARACTERS = 8;
/** bcrypt's limit. */
export const PASSWORD_MAX_BYTES = 72;

/** What is wrong with a new password under the server's rules, or undefined. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < PASSWORD_MIN_CHARACTERS) {
    return t('common.password.tooShort', { min: PASSWORD_MIN_CHARACTERS });
  }
  if (new TextEncoder().encode(password).length > PASSWORD_MAX_BYTES) {
    return t('common.password.tooLong', { max: PASSWORD_MAX_BYTES });
  }
  return undefined;
}

/** The rules of a new password, for the hint under the field. */
export function passwordHint(): string {
  return t('common.password.hint', { min: PASSWORD_MIN_CHARACTERS, max: PASSWORD_MAX_BYTES });
}

/**
 * A failed call's message for people; for a 429 with `Retry-After`, plus when to try again (unless
 * the server's message says so already).
 */
export function messageWithRetry(error: { message: string; retryAfterSeconds?: number }): string {
  const seconds = error.retryAfterSeconds;
  if (seconds === undefined || /try again in/i.test(error.message)) return error.message;
  const sentence = /[.!?]$/.test(error.message) ? error.message : `${error.message}.`;
  return t('common.tryAgainIn', { sentence, seconds });
}

/** Moves focus to the first element of `root` matching `selector` once the view has been updated. */
export function focusAfterRender(injector: Injector, root: HTMLElement, selector: string): void {
  afterNextRender({ write: () => root.querySelector<HTMLElement>(selector)?.focus() }, { injector });
}

/**
 * For a component (call it in a field initialiser): a function that moves focus to the first element
 * of the component's own view matching a selector once the view has been updated.
 */
export function injectFocus(): (selector: string) => void {
  const host = inject<ElementRef<HTMLElement>>(ElementRef);
  const injector = inject(Injector);
  return (selector) => focusAfterRender(injector, host.nativeElement, selector);
}

/**
 * Runs one call of a form or a button with `busy` set until it settles; when it fails, `failed`
 * gets the error. One place for the try/catch/finally every submit would otherwise repeat.
 */
export async function whileBusy(
  busy: WritableSignal<boolean>,
  work: () => Promise<void>,
  failed: (error: ApiCallError) => void,
): Promise<void> {
  busy.set(true);
  try {
    await work();
  } catch (failure: unknown) {
    failed(ApiCallError.from(failure));
  } finally {
    busy.set(false);
  }
}

/**
 * A form's field errors (each a text, or undefined): none until the first submit sets `submitted`,
 * so that nobody is told off before trying; from then on they follow the typing.
 */
export function errorsOnceSubmitted<T extends object>(
  submitted: Signal<boolean>,
  check: () => T,
): Signal<Partial<T>> {
  return computed(() => (submitted() ? check() : {}));
}

/** Whether any field of a form has an error. */
export function anyError(errors: object): boolean {
  return Object.values(errors).some(Boolean);
}

/**
 * A submit's check of the fields: from now on `errors` shows; when a field has one, focus goes to the
 * first such field (inside `within`, a selector, when given) and the answer is false.
 */
export function fieldsValidOnSubmit(
  submitted: WritableSignal<boolean>,
  errors: Signal<object>,
  focus: (selector: string) => void,
  within?: string,
): boolean {
  submitted.set(true);
  if (!anyError(errors())) return true;
  focus(within ? `${within} [aria-invalid="true"]` : '[aria-invalid="true"]');
  return false;
}
