import { type Injector, afterNextRender } from '@angular/core';

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
    return `Use at least ${PASSWORD_MIN_CHARACTERS} characters.`;
  }
  if (new TextEncoder().encode(password).length > PASSWORD_MAX_BYTES) {
    return `Use at most ${PASSWORD_MAX_BYTES} bytes: that is 72 plain letters or digits, fewer with accents or emoji.`;
  }
  return undefined;
}

export const PASSWORD_HINT = `At least ${PASSWORD_MIN_CHARACTERS} characters, at most ${PASSWORD_MAX_BYTES} bytes.`;

/**
 * A failed call's message for people; for a 429 with `Retry-After`, plus when to try again (unless
 * the server's message says so already).
 */
export function messageWithRetry(error: { message: string; retryAfterSeconds?: number }): string {
  const seconds = error.retryAfterSeconds;
  if (seconds === undefined || /try again in/i.test(error.message)) return error.message;
  const wait = seconds <= 1 ? 'a second' : `${seconds} seconds`;
  const sentence = /[.!?]$/.test(error.message) ? error.message : `${error.message}.`;
  return `${sentence} Try again in ${wait}.`;
}

/** Moves focus to the first element of `root` matching `selector` once the view has been updated. */
export function focusAfterRender(injector: Injector, root: HTMLElement, selector: string): void {
  afterNextRender({ write: () => root.querySelector<HTMLElement>(selector)?.focus() }, { injector });
}
