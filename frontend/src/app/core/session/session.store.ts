import { Injectable, computed, inject, signal } from '@angular/core';
import { Router } from '@angular/router';
import type { Role, SessionInfo } from '@monitor/contracts';

import { ApiClient } from '../api/api-client.service';
import { ApiCallError } from '../api/api-call-error';
import { ApiEvents, type UnauthorizedCall } from '../api/api-events';
import { isAuthPage } from './next-url';
import { hasRole } from './roles';

/**
 * Calls whose 401 means "these credentials are wrong", not "your session ended": they are made while
 * signed out, or they check a password the person typed.
 */
const CREDENTIAL_CALLS: ReadonlySet<string> = new Set([
  '/api/session',
  '/api/setup',
  '/api/login',
  '/api/login/totp',
  '/api/logout',
]);

/**
 * Who is signed in, from `GET /api/session`, as signals.
 *
 * Loaded once when the app starts (the route guards wait for it) and again after anything that
 * changes it: setup, signing in or out, a second-factor change. When any API call answers 401, the
 * store asks the server again; if the session really ended, it returns to `/sign-in?next=<page>`.
 */
@Injectable({ providedIn: 'root' })
export class SessionStore {
  private readonly api = inject(ApiClient);
  private readonly router = inject(Router);

  private readonly state = signal<SessionInfo | undefined>(undefined);
  private readonly failure = signal<ApiCallError | undefined>(undefined);
  private inFlight: Promise<SessionInfo> | undefined;
  private generation = 0;
  private checkingUnauthorized = false;
  /** A call that ends this browser's other sessions and answers with a fresh cookie. */
  private renewal: Promise<unknown> | undefined;
  /** The URL a navigation was heading for when the session could not be read. */
  private blockedUrl: string | undefined;

  /** The last session read; undefined until the first answer. */
  readonly info = this.state.asReadonly();
  /** Why the last read failed (network, server error); cleared by the next success. */
  readonly loadError = this.failure.asReadonly();

  readonly setupNeeded = computed(() => this.state()?.setup_needed ?? false);
  readonly authenticated = computed(() => this.state()?.authenticated ?? false);
  readonly via = computed(() => this.state()?.via ?? null);
  readonly user = computed(() => this.state()?.user ?? null);
  /** The API key is an administrator without an account. */
  readonly role = computed<Role | null>(() =>
    this.via() === 'api_key' ? 'admin' : (this.state()?.user?.role ?? null),
  );
  readonly isAdmin = computed(() => this.authenticated() && hasRole(this.role(), 'admin'));

  constructor() {
    inject(ApiEvents).onUnauthorized((call) => void this.unauthorized(call));
  }

  /** The session, read from the server the first time and remembered afterwards. */
  ensureLoaded(): Promise<SessionInfo> {
    const known = this.state();
    if (known) return Promise.resolve(known);
    return this.inFlight ?? this.reload();
  }

  /**
   * Reads the session from the server again. Every call sends a request (the session may just have
   * changed); when answers cross, the one to the latest request is kept. A read asked for while a
   * {@link renewing} call runs is sent after it: the old cookie would report the session as ended.
   */
  reload(): Promise<SessionInfo> {
    const generation = ++this.generation;
    const latest = () => generation === this.generation;
    const request = this.afterRenewal()
      .then(() => this.api.get<SessionInfo>('/api/session'))
      .then(
        (info) => {
          if (latest()) {
            this.inFlight = undefined;
            this.state.set(info);
            this.failure.set(undefined);
          }
          return info;
        },
        (failure: unknown) => {
          const error = ApiCallError.from(failure);
          if (latest()) {
            this.inFlight = undefined;
            this.failure.set(error);
          }
          throw error;
        },
      );
    this.inFlight = request;
    return request;
  }

  /**
   * Runs a call that ends the account's sessions and hands this browser a fresh cookie with its
   * answer (a password change, a restore). Until that answer arrives, other calls made with the old
   * cookie may be refused: a 401 meanwhile is judged only once the call is over.
   */
  renewing<T>(call: Promise<T>): Promise<T> {
    const settled = call.catch(() => undefined);
    this.renewal = settled;
    void settled.then(() => {
      if (this.renewal === settled) this.renewal = undefined;
    });
    return call;
  }

  private async afterRenewal(): Promise<void> {
    while (this.renewal) await this.renewal;
  }

  /** Remembers where a navigation was going when the session could not be read (see {@link retry}). */
  blocked(url: string): void {
    this.blockedUrl = url;
  }

  /** Reads the session again after a failure and resumes the navigation it blocked. */
  async retry(): Promise<void> {
    await this.reload();
    await this.router.navigateByUrl(this.blockedUrl ?? this.router.url);
    this.blockedUrl = undefined;
  }

  /** Ends the session on the server and goes to the sign-in page. */
  async signOut(): Promise<void> {
    await this.api.post('/api/logout');
    this.markSignedOut();
    try {
      await this.reload();
    } catch {
      // The sign-in page reads the session again if it has to; signing out itself worked.
    }
    await this.router.navigateByUrl('/sign-in');
  }

  private markSignedOut(): void {
    const info = this.state();
    if (info) this.state.set({ ...info, authenticated: false, via: null, user: null });
  }

  /** A call answered 401: if the session ended, back to the sign-in page, then to this page. */
  private async unauthorized(call: UnauthorizedCall): Promise<void> {
    if (CREDENTIAL_CALLS.has(call.path) || !this.authenticated() || this.checkingUnauthorized) return;
    this.checkingUnauthorized = true;
    let info: SessionInfo;
    try {
      // A 401 may also be a wrong password typed into a form; only the server knows which it was.
      info = await this.reload();
    } catch {
      return;
    } finally {
      this.checkingUnauthorized = false;
    }
    if (info.authenticated) return;
    if (info.setup_needed) {
      await this.router.navigateByUrl('/setup');
      return;
    }
    const heading = this.router.currentNavigation()?.finalUrl;
    const here = heading ? this.router.serializeUrl(heading) : this.router.url;
    await this.router.navigate(['/sign-in'], {
      queryParams: isAuthPage(here) || here === '/' ? {} : { next: here },
    });
  }
}
