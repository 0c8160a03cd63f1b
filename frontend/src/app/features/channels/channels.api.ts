import { Injectable, inject } from '@angular/core';
import type { OkResponse } from '@monitor/contracts';

import { ApiClient } from '../../core/api/api-client.service';
import type { AlertChannel, ChannelInput, ChannelType } from './channel.models';

const channelPath = (id: number) => `/api/channels/${id}`;

/**
 * The calls of the alert channels page. Every one rejects with an `ApiCallError` whose message is
 * the server's own `{error}` text where it sent one.
 */
@Injectable({ providedIn: 'root' })
export class ChannelsApi {
  private readonly api = inject(ApiClient);

  list(): Promise<AlertChannel[]> {
    return this.api.get<AlertChannel[]>('/api/channels');
  }

  /** The channel types the server can send through, with their config fields. */
  types(): Promise<ChannelType[]> {
    return this.api.get<ChannelType[]>('/api/channel-types');
  }

  create(input: ChannelInput): Promise<AlertChannel> {
    return this.api.post<AlertChannel>('/api/channels', input);
  }

  update(id: number, input: ChannelInput): Promise<AlertChannel> {
    return this.api.put<AlertChannel>(channelPath(id), input);
  }

  remove(id: number): Promise<OkResponse> {
    return this.api.delete<OkResponse>(channelPath(id));
  }

  /** Sends a test through a channel not saved yet, configured as `input`. */
  testUnsaved(input: ChannelInput): Promise<OkResponse> {
    return this.api.post<OkResponse>('/api/channels/test', input);
  }

  /** Sends a test through a saved channel. */
  testSaved(id: number): Promise<OkResponse> {
    return this.api.post<OkResponse>(`${channelPath(id)}/test`);
  }
}
