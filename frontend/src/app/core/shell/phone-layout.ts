import { DOCUMENT, DestroyRef, Signal, inject, signal } from '@angular/core';

/** Up to this width the header collapses into the Menu button (the CSS uses the same 45rem = 720 px). */
export const PHONE_QUERY = '(max-width: 45rem)';

/** Whether the viewport is phone-sized, following resizes. Call it in an injection context. */
export function phoneLayout(): Signal<boolean> {
  const view = inject(DOCUMENT).defaultView;
  const query = view?.matchMedia?.(PHONE_QUERY);
  const phone = signal(query?.matches ?? false);
  if (query) {
    const changed = (event: MediaQueryListEvent) => phone.set(event.matches);
    query.addEventListener('change', changed);
    inject(DestroyRef).onDestroy(() => query.removeEventListener('change', changed));
  }
  return phone.asReadonly();
}
