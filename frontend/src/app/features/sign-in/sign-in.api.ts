import { Injectable, inject } from '@angular/core';
import type { LoginRequest, LoginResponse, OkResponse, TotpLoginRequest } from '@monitor/contracts';

import { ApiClient } from '../../core/api/api-client.service';

/** The calls of the sign-in page. */
@Injectable({ providedIn: 'root' })
export class SignInApi {
  private readonly api = inject(ApiClient);

  /** Username and password: signed in, or a second-factor challenge. */
  login(body: LoginRequest): Promise<LoginResponse> {
    return this.api.post<LoginResponse>('/api/login', body);
  }

  /** The code answering a challenge. */
  loginWithCode(body: TotpLoginRequest): Promise<OkResponse> {
    return this.api.post<OkResponse>('/api/login/totp', body);
  }
}
