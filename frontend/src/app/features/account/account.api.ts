import { Injectable, inject } from '@angular/core';
import type {
  ChangePasswordRequest,
  OkResponse,
  RecoveryCodesResponse,
  TotpStartResponse,
} from '@monitor/contracts';

import { ApiClient } from '../../core/api/api-client.service';

/** The calls of the signed-in person's own account page: password and second factor. */
@Injectable({ providedIn: 'root' })
export class AccountApi {
  private readonly api = inject(ApiClient);

  changePassword(body: ChangePasswordRequest): Promise<OkResponse> {
    return this.api.put<OkResponse>('/api/password', body);
  }

  /** Starts setting up the second factor: a new secret, whose QR code is at {@link totpQrUrl}. */
  startTotp(): Promise<TotpStartResponse> {
    return this.api.post<TotpStartResponse>('/api/me/totp/start');
  }

  /** Turns the second factor on with a code from the app; answers the recovery codes. */
  confirmTotp(code: string): Promise<RecoveryCodesResponse> {
    return this.api.post<RecoveryCodesResponse>('/api/me/totp/confirm', { code });
  }

  disableTotp(password: string): Promise<OkResponse> {
    return this.api.post<OkResponse>('/api/me/totp/disable', { password });
  }

  newRecoveryCodes(password: string): Promise<RecoveryCodesResponse> {
    return this.api.post<RecoveryCodesResponse>('/api/me/totp/recovery', { password });
  }
}

/** The QR code of the enrolment under way; `nonce` keeps the browser from showing a cached one. */
export function totpQrUrl(nonce: number): string {
  return `/api/me/totp/qr?t=${nonce}`;
}
