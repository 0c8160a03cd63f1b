import { Injectable } from '@angular/core';

/**
 * Hands a new push sensor's token from the create to its edit page, in memory only: it is taken
 * once, so a reload or a later visit shows the token masked (not kept in the browser's history).
 */
@Injectable({ providedIn: 'root' })
export class CreatedPushToken {
  private held: { id: number; token: string } | undefined;

  hold(id: number, token: string): void {
    this.held = { id, token };
  }

  take(id: number | undefined): string | undefined {
    const held = this.held;
    this.held = undefined;
    return held && held.id === id ? held.token : undefined;
  }
}
