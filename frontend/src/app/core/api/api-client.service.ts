import { HttpClient, HttpParams } from '@angular/common/http';
import { Injectable, inject } from '@angular/core';
import { catchError, firstValueFrom, throwError, timeout } from 'rxjs';

import { API_DEADLINE_MS, ApiCallError } from './api-call-error';
import { ApiEvents } from './api-events';

type ParamValue = string | number | boolean;

export interface ApiRequestOptions {
  /** Query string parameters; arrays repeat the key. */
  readonly params?: Readonly<Record<string, ParamValue | readonly ParamValue[]>>;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * The dashboard's only way to talk to the server.
 *
 * Every call resolves with the parsed JSON body (`null` for an empty body), is sent with same-origin
 * credentials, is abandoned after 15 seconds, and rejects only with an {@link ApiCallError}.
 * Paths are absolute on the server, e.g. `/api/version`. A 401 answer is also reported to
 * {@link ApiEvents} (the session store then decides whether the person was signed out), and so is a call
 * that got no answer.
 */
@Injectable({ providedIn: 'root' })
export class ApiClient {
  private readonly http = inject(HttpClient);
  private readonly events = inject(ApiEvents);

  get<T>(path: string, options?: ApiRequestOptions): Promise<T> {
    return this.request<T>('GET', path, undefined, options);
  }

  post<T>(path: string, body?: unknown, options?: ApiRequestOptions): Promise<T> {
    return this.request<T>('POST', path, body, options);
  }

  put<T>(path: string, body?: unknown, options?: ApiRequestOptions): Promise<T> {
    return this.request<T>('PUT', path, body, options);
  }

  patch<T>(path: string, body?: unknown, options?: ApiRequestOptions): Promise<T> {
    return this.request<T>('PATCH', path, body, options);
  }

  delete<T>(path: string, options?: ApiRequestOptions): Promise<T> {
    return this.request<T>('DELETE', path, undefined, options);
  }

  private request<T>(method: Method, path: string, body: unknown, options?: ApiRequestOptions): Promise<T> {
    if (!path.startsWith('/')) {
      return Promise.reject(new ApiCallError(0, `API paths must start with "/" (got "${path}").`));
    }
    const call = this.http
      .request<T>(method, path, {
        body: body ?? null,
        params: options?.params ? new HttpParams({ fromObject: options.params }) : undefined,
        credentials: 'same-origin',
        responseType: 'json',
        observe: 'body',
      })
      .pipe(
        timeout({ first: API_DEADLINE_MS, with: () => throwError(() => ApiCallError.timeout()) }),
        catchError((failure: unknown) => {
          const error = ApiCallError.from(failure);
          if (error.status === 401) this.events.notifyUnauthorized({ method, path });
          if (error.status === 0) this.events.notifyUnanswered({ method, path });
          return throwError(() => error);
        }),
      );
    return firstValueFrom(call, { defaultValue: null as T });
  }
}
