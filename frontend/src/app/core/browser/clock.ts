import { InjectionToken } from '@angular/core';

/** The current time. Replace it in tests to freeze time. */
export const CLOCK = new InjectionToken<() => Date>('CLOCK', {
  providedIn: 'root',
  factory: () => () => new Date(),
});
