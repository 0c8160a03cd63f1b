import { type AlertContext, renderAlert, templateData } from '@monitor/domain/alert-message';
import { renderTemplate } from '@monitor/domain/template';
import { DatePipe } from '@angular/common';
import {
  ChangeDetectionStrategy,
  Component,
  ElementRef,
  Injector,
  computed,
  inject,
  signal,
} from '@angular/core';
import type { OkResponse } from '@monitor/contracts';

import { ApiClient } from '../../core/api/api-client.service';
import { ApiCallError } from '../../core/api/api-call-error';
import { loadable } from '../../core/api/loadable';
import { SessionStore } from '../../core/session/session.store';
import { focusAfterRender, inputValue } from '../../shared/forms/form-helpers';
import { ErrorAlertComponent } from '../../shared/ui/error-alert.component';
import { LoadingIndicatorComponent } from '../../shared/ui/loading-indicator.component';
import {
  STORED_SECRET,
  type AlertChannel,
  type ChannelField,
  type ChannelInput,
  type ChannelType,
} from './channel.models';

/** The editor's state: which channel (none for a new one) and the values typed so far. */
interface Draft {
  readonly id: number | undefined;
  readonly name: string;
  readonly type: string;
  readonly enabled: boolean;
  readonly titleTemplate: string;
  readonly bodyTemplate: string;
  /** Field values as typed; a secret that is stored and untouched is ''. */
  readonly config: Readonly<Record<string, string | boolean>>;
  /** Secret fields the server holds a value for (sent back as "__stored__" while left empty). */
  readonly stored: readonly string[];
}

/** `/channels`: where alerts go. Everyone sees the list; administrators create, edit, test and delete. */
const SAMPLE_ALERT: AlertContext = {
  kind: 'down',
  at: Date.parse('2026-01-01T12:00:00Z'),
  sensor: {
    name: 'Web shop',
    type: 'http',
    target: 'https://shop.example.com',
    group: 'web',
    tags: ['prod'],
    status: 'down',
  },
  result: { message: 'HTTP 503', latency_ms: 123, status_code: 503 },
  downSince: Date.parse('2026-01-01T12:00:00Z'),
  downForMs: 0,
  url: 'https://status.example.com/sensors/1',
};

@Component({
  selector: 'app-channels-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [DatePipe, ErrorAlertComponent, LoadingIndicatorComponent],
  templateUrl: './channels-page.component.html',
  styleUrl: './channels-page.component.css',
})
export class ChannelsPageComponent {
  private readonly api = inject(ApiClient);
  private readonly session = inject(SessionStore);
  private readonly host = inject<ElementRef<HTMLElement>>(ElementRef);
  private readonly injector = inject(Injector);

  protected readonly isAdmin = this.session.isAdmin;
  protected readonly list = loadable(() => this.api.get<AlertChannel[]>('/api/channels'));
  protected readonly types = loadable(() => this.api.get<ChannelType[]>('/api/channel-types'));

  protected readonly status = signal('');
  protected readonly failure = signal<string | undefined>(undefined);
  protected readonly busy = signal(false);
  protected readonly confirmDeleteId = signal<number | undefined>(undefined);

  protected readonly draft = signal<Draft | undefined>(undefined);
  protected readonly formFailure = signal<string | undefined>(undefined);
  protected readonly testResult = signal<{ ok: boolean; message: string } | undefined>(undefined);

  protected readonly draftType = computed<ChannelType | undefined>(() => {
    const type = this.draft()?.type;
    return this.types.value()?.find((entry) => entry.type === type);
  });

  protected readonly storedPlaceholder = 'stored — retype to change';

  /** What a down alert of a sample sensor would say with the templates as typed. */
  protected readonly preview = computed(() => {
    const draft = this.draft();
    if (!draft) return undefined;
    const problems = [
      ['Title template', draft.titleTemplate],
      ['Body template', draft.bodyTemplate],
    ]
      .filter(([, template]) => template.trim() !== '')
      .map(([label, template]) => [label, renderTemplate(template, templateData(SAMPLE_ALERT))] as const)
      .flatMap(([label, result]) =>
        result.ok ? [] : [`${label}: ${result.error} — the built-in wording is used instead.`],
      );
    return { ...renderAlert(SAMPLE_ALERT, draft.titleTemplate, draft.bodyTemplate), problems };
  });

  protected typeLabel(type: string): string {
    return this.types.value()?.find((entry) => entry.type === type)?.label ?? type;
  }

  protected startCreate(): void {
    const first = this.types.value()?.[0];
    this.openDraft({
      id: undefined,
      name: '',
      type: first?.type ?? '',
      enabled: true,
      titleTemplate: '',
      bodyTemplate: '',
      config: first ? this.emptyConfig(first) : {},
      stored: [],
    });
  }

  protected startEdit(channel: AlertChannel): void {
    const type = this.types.value()?.find((entry) => entry.type === channel.type);
    const config: Record<string, string | boolean> = {};
    const stored: string[] = [];
    for (const field of type?.fields ?? []) {
      const value = channel.config[field.name];
      if (field.secret && value === STORED_SECRET) {
        stored.push(field.name);
        config[field.name] = '';
      } else if (field.kind === 'boolean') {
        config[field.name] = value === true;
      } else {
        config[field.name] = typeof value === 'string' ? value : value == null ? '' : String(value);
      }
    }
    this.openDraft({
      id: channel.id,
      name: channel.name,
      type: channel.type,
      enabled: channel.enabled,
      titleTemplate: channel.title_template,
      bodyTemplate: channel.body_template,
      config,
      stored,
    });
  }

  protected cancel(): void {
    this.draft.set(undefined);
    this.formFailure.set(undefined);
    this.testResult.set(undefined);
  }

  protected setName(event: Event): void {
    this.patch({ name: inputValue(event) });
  }

  protected setType(event: Event): void {
    const type = this.types.value()?.find((entry) => entry.type === inputValue(event));
    if (type) this.patch({ type: type.type, config: this.emptyConfig(type), stored: [] });
  }

  protected setEnabled(event: Event): void {
    this.patch({ enabled: (event.target as HTMLInputElement).checked });
  }

  protected setTitle(event: Event): void {
    this.patch({ titleTemplate: inputValue(event) });
  }

  protected setBody(event: Event): void {
    this.patch({ bodyTemplate: inputValue(event) });
  }

  protected setField(field: ChannelField, event: Event): void {
    const target = event.target as HTMLInputElement;
    const value = field.kind === 'boolean' ? target.checked : target.value;
    const draft = this.draft();
    if (draft) this.patch({ config: { ...draft.config, [field.name]: value } });
  }

  protected fieldValue(field: ChannelField): string | boolean {
    return this.draft()?.config[field.name] ?? (field.kind === 'boolean' ? false : '');
  }

  protected textValue(field: ChannelField): string {
    const value = this.fieldValue(field);
    return typeof value === 'string' ? value : '';
  }

  protected isStored(field: ChannelField): boolean {
    return field.secret && (this.draft()?.stored.includes(field.name) ?? false);
  }

  protected async save(event: Event): Promise<void> {
    event.preventDefault();
    const draft = this.draft();
    if (!draft || this.busy()) return;
    this.formFailure.set(undefined);
    this.testResult.set(undefined);
    this.status.set('');
    this.busy.set(true);
    try {
      const body = this.body(draft);
      const saved =
        draft.id === undefined
          ? await this.api.post<AlertChannel>('/api/channels', body)
          : await this.api.put<AlertChannel>(`/api/channels/${draft.id}`, body);
      this.status.set(`The channel ${saved.name} was saved.`);
      this.startEditAfterSave(saved);
      this.list.reload();
    } catch (failure: unknown) {
      this.formFailure.set(ApiCallError.from(failure).message);
      this.focus('#channel-form-error');
    } finally {
      this.busy.set(false);
    }
  }

  /** Sends a test through the saved channel, or through the form as typed when it is new. */
  protected async sendTest(): Promise<void> {
    const draft = this.draft();
    if (!draft || this.busy()) return;
    this.testResult.set(undefined);
    this.formFailure.set(undefined);
    this.busy.set(true);
    try {
      if (draft.id === undefined) await this.api.post<OkResponse>('/api/channels/test', this.body(draft));
      else await this.api.post<OkResponse>(`/api/channels/${draft.id}/test`);
      this.testResult.set({ ok: true, message: 'Test message sent' });
    } catch (failure: unknown) {
      this.testResult.set({ ok: false, message: ApiCallError.from(failure).message });
    } finally {
      this.busy.set(false);
      this.list.reload();
    }
  }

  protected askDelete(channel: AlertChannel): void {
    this.confirmDeleteId.set(channel.id);
    this.failure.set(undefined);
    this.focus('#confirm-delete');
  }

  protected cancelDelete(channel: AlertChannel): void {
    this.confirmDeleteId.set(undefined);
    this.focus(`[data-delete="${channel.id}"]`);
  }

  protected async remove(channel: AlertChannel): Promise<void> {
    if (this.busy()) return;
    this.busy.set(true);
    this.failure.set(undefined);
    try {
      await this.api.delete<OkResponse>(`/api/channels/${channel.id}`);
      this.confirmDeleteId.set(undefined);
      if (this.draft()?.id === channel.id) this.cancel();
      this.status.set(`The channel ${channel.name} was deleted.`);
      this.list.reload();
    } catch (failure: unknown) {
      this.failure.set(ApiCallError.from(failure).message);
    } finally {
      this.busy.set(false);
    }
  }

  private startEditAfterSave(saved: AlertChannel): void {
    this.startEdit(saved);
  }

  private body(draft: Draft): ChannelInput {
    const type = this.types.value()?.find((entry) => entry.type === draft.type);
    const config: Record<string, string | boolean> = {};
    for (const field of type?.fields ?? []) {
      const value = draft.config[field.name];
      if (field.kind === 'boolean') {
        config[field.name] = value === true;
      } else if (typeof value === 'string' && value !== '') {
        config[field.name] = value;
      } else if (field.secret && draft.stored.includes(field.name)) {
        config[field.name] = STORED_SECRET;
      }
    }
    return {
      name: draft.name.trim(),
      type: draft.type,
      config,
      enabled: draft.enabled,
      title_template: draft.titleTemplate,
      body_template: draft.bodyTemplate,
    };
  }

  private emptyConfig(type: ChannelType): Record<string, string | boolean> {
    return Object.fromEntries(
      type.fields.map((field) => [field.name, field.kind === 'boolean' ? false : '']),
    );
  }

  private openDraft(draft: Draft): void {
    this.draft.set(draft);
    this.formFailure.set(undefined);
    this.testResult.set(undefined);
    this.focus('#channel-name');
  }

  private patch(change: Partial<Draft>): void {
    const draft = this.draft();
    if (draft) this.draft.set({ ...draft, ...change });
  }

  private focus(selector: string): void {
    focusAfterRender(this.injector, this.host.nativeElement, selector);
  }
}
