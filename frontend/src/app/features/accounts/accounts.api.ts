import { Injectable, inject } from '@angular/core';
import type {
  CreateUserRequest,
  OkResponse,
  UpdateUserRequest,
  UserAccount,
  UserList,
} from '@monitor/contracts';

import { ApiClient } from '../../core/api/api-client.service';

const userPath = (id: number) => `/api/users/${id}`;

/** The calls of the accounts page (administrators). */
@Injectable({ providedIn: 'root' })
export class AccountsApi {
  private readonly api = inject(ApiClient);

  /** Every account, and the roles one can have. */
  list(): Promise<UserList> {
    return this.api.get<UserList>('/api/users');
  }

  create(body: CreateUserRequest): Promise<UserAccount> {
    return this.api.post<UserAccount>('/api/users', body);
  }

  update(id: number, body: UpdateUserRequest): Promise<UserAccount> {
    return this.api.put<UserAccount>(userPath(id), body);
  }

  /** Sets another account's password (a reset: its sessions end). */
  setPassword(id: number, password: string): Promise<OkResponse> {
    return this.api.post<OkResponse>(`${userPath(id)}/password`, { new_password: password });
  }

  remove(id: number): Promise<OkResponse> {
    return this.api.delete<OkResponse>(userPath(id));
  }
}
