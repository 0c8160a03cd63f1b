import { type AlertContext, renderAlert, templateData } from '@monitor/domain/alert-message';
import {
  CHANNEL_BODY_TEMPLATE,
  CHANNEL_NAME,
  CHANNEL_TITLE_TEMPLATE,
} from '@monitor/domain/channel.definition';
import { renderTemplate } from '@monitor/domain/template';
import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { TranslocoPipe } from '@jsverse/transloco';

import { ApiCallError } from '../../core/api/api-call-error';
import { loadable } from '../../core/api/loadable';
import { t } from '../../core/i18n/i18n';
import { SessionStore } from '../../core/session/session.store';
import { injectFocus, inputValue, whileBusy } from '../../shared/forms/form-helpers';
import { ErrorAlertComponent } from '../../shared/ui/error-alert.component';
import { LoadingIndicatorComponent } from '../../shared/ui/loading-indicator.component';
import {
  STORED_SECRET,
  type AlertChannel,
  type ChannelField,
  type ChannelInput,
  type ChannelType,
} from './channel.models';
import { ChannelsApi } from './channels.api';

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

/** The alert the template preview renders. */
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

/** Code-like fragments of the recipes and hints, passed in because ICU would read them as tags or arguments. */
const CODE_FRAGMENTS = {
  token: '<token>',
  user: '<user>',
  id: '<id>',
  group: '<group>',
  topic: '<topic>',
  hex: '<hex>',
  chatId: '"chat":{"id":…}',
};

const camel = (name: string) => name.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

/**
 * A text of a channel type from the catalogue (`channels.types.<type>.<path>`). The server defines
 * the types: for one the catalogue does not know yet, its own (English) wording is shown.
 */
function typeText(type: string, path: string, fallback: string): string {
  const key = `channels.types.${camel(type)}.${path}`;
  const text = t(`channels.types.${camel(type)}.${path}`, CODE_FRAGMENTS);
  return text === key ? fallback : text;
}

/** `/channels`: where alerts go. Everyone sees the list; administrators create, edit, test and delete. */
@Component({
  selector: 'app-channels-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [DatePipe, TranslocoPipe, ErrorAlertComponent, LoadingIndicatorComponent],
  templateUrl: './channels-page.component.html',
  styleUrl: './channels-page.component.css',
})
export class ChannelsPageComponent {
  private readonly api = inject(ChannelsApi);
  private readonly session = inject(SessionStore);
  private readonly focus = injectFocus();

  protected readonly isAdmin = this.session.isAdmin;
  /** Lengths of the channel definition the server checks against. */
  protected readonly limits = {
    name: CHANNEL_NAME.maxLength,
    title: CHANNEL_TITLE_TEMPLATE.maxLength,
    body: CHANNEL_BODY_TEMPLATE.maxLength,
  } as const;
  protected readonly list = loadable(() => this.api.list());
  protected readonly types = loadable(() => this.api.types());

  /** The last change, shown in the status line; translated where shown so it follows the language. */
  protected readonly change = signal<{ kind: 'saved' | 'deleted'; name: string } | undefined>(undefined);
  protected readonly status = computed(() => {
    const change = this.change();
    return change ? t(`channels.status.${change.kind}`, { name: change.name }) : '';
  });
  protected readonly failure = signal<string | undefined>(undefined);
  protected readonly busy = signal(false);
  protected readonly confirmDeleteId = signal<number | undefined>(undefined);

  protected readonly draft = signal<Draft | undefined>(undefined);
  protected readonly formFailure = signal<string | undefined>(undefined);
  /** A failed test carries the server's message; a sent one is worded here. */
  protected readonly testResult = signal<{ ok: boolean; message?: string } | undefined>(undefined);
  protected readonly testMessage = computed(() => {
    const result = this.testResult();
    if (!result) return '';
    return result.ok ? t('channels.form.testSent') : (result.message ?? '');
  });

  protected readonly draftType = computed<ChannelType | undefined>(() => {
    const type = this.draft()?.type;
    return this.types.value()?.find((entry) => entry.type === type);
  });

  /** What a down alert of a sample sensor would say with the templates as typed. */
  protected readonly preview = computed(() => {
    const draft = this.draft();
    if (!draft) return undefined;
    const problems = (
      [
        ['title', draft.titleTemplate],
        ['body', draft.bodyTemplate],
      ] as const
    )
      .filter(([, template]) => template.trim() !== '')
      .map(([which, template]) => [which, renderTemplate(template, templateData(SAMPLE_ALERT))] as const)
      .flatMap(([which, result]) =>
        result.ok ? [] : [t(`channels.preview.problem.${which}`, { error: result.error })],
      );
    return { ...renderAlert(SAMPLE_ALERT, draft.titleTemplate, draft.bodyTemplate), problems };
  });

  protected typeLabel(type: string): string {
    const label = this.types.value()?.find((entry) => entry.type === type)?.label ?? type;
    return typeText(type, 'label', label);
  }

  protected fieldText(type: string, field: ChannelField, part: 'label' | 'description'): string {
    return typeText(type, `fields.${camel(field.name)}.${part}`, field[part]);
  }

  protected recipe(type: ChannelType): string[] {
    return type.recipe.map((step, index) => typeText(type.type, `recipe.step${index + 1}`, step));
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
    this.change.set(undefined);
    await whileBusy(
      this.busy,
      async () => {
        const body = this.body(draft);
        const saved =
          draft.id === undefined ? await this.api.create(body) : await this.api.update(draft.id, body);
        this.change.set({ kind: 'saved', name: saved.name });
        this.startEditAfterSave(saved);
        this.list.reload();
      },
      (error) => {
        this.formFailure.set(error.message);
        this.focus('#channel-form-error');
      },
    );
  }

  /** Sends a test through the saved channel, or through the form as typed when it is new. */
  protected async sendTest(): Promise<void> {
    const draft = this.draft();
    if (!draft || this.busy()) return;
    this.testResult.set(undefined);
    this.formFailure.set(undefined);
    this.busy.set(true);
    try {
      if (draft.id === undefined) await this.api.testUnsaved(this.body(draft));
      else await this.api.testSaved(draft.id);
      this.testResult.set({ ok: true });
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
    this.failure.set(undefined);
    await whileBusy(
      this.busy,
      async () => {
        await this.api.remove(channel.id);
        this.confirmDeleteId.set(undefined);
        if (this.draft()?.id === channel.id) this.cancel();
        this.change.set({ kind: 'deleted', name: channel.name });
        this.list.reload();
      },
      (error) => this.failure.set(error.message),
    );
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
}
