import { Injectable } from '@nestjs/common';
import {
  CHANNEL_DEFAULTS,
  ConflictError,
  InvalidInputError,
  maskSecrets,
  NotFoundError,
  parseTemplate,
  restoreSecrets,
  TemplateParseError,
} from '@monitor/domain';
import { NotifierCatalogue, type Notifier } from '@monitor/notifiers';
import { Clock } from '../core/clock/clock';
import { EventBus } from '../core/events/event-bus';
import type { ChannelEntity } from './channel.entity';
import { ChannelsRepository } from './channels.repository';
import type { ChannelDto, ChannelInputDto } from './dto/channel.dto';

interface ChannelDraft {
  name: string;
  type: string;
  config: Record<string, unknown>;
  enabled: boolean;
  title_template: string;
  body_template: string;
}

/** The stored columns of a checked draft (shared with the configuration file's channels). */
export const channelColumns = (draft: ChannelDraft) => ({
  name: draft.name,
  type: draft.type,
  config: draft.config,
  enabled: draft.enabled,
  titleTemplate: draft.title_template,
  bodyTemplate: draft.body_template,
});

/** Alert channels: validation by each type's sender, secrets masked on every output. */
@Injectable()
export class ChannelsService {
  constructor(
    private readonly repository: ChannelsRepository,
    private readonly catalogue: NotifierCatalogue,
    private readonly events: EventBus,
    private readonly clock: Clock,
  ) {}

  async list(): Promise<ChannelDto[]> {
    return (await this.repository.list()).map((c) => this.view(c));
  }

  async get(id: number): Promise<ChannelDto> {
    return this.view(await this.mustFind(id));
  }

  async create(input: ChannelInputDto): Promise<ChannelDto> {
    const draft = this.draft(null, input);
    const saved = await this.repository.insert(channelColumns(draft), this.clock.now());
    this.events.emit('channel', { id: saved.id, action: 'created' });
    return this.view(saved);
  }

  async update(id: number, input: ChannelInputDto): Promise<ChannelDto> {
    const stored = await this.mustFind(id);
    if (stored.managedBy)
      throw new ConflictError(`channel "${stored.name}" is managed by the configuration file`);
    const draft = this.draft(stored, input);
    const saved = await this.repository.update(stored, channelColumns(draft), this.clock.now());
    this.events.emit('channel', { id, action: 'updated' });
    return this.view(saved);
  }

  async remove(id: number): Promise<void> {
    const stored = await this.mustFind(id);
    if (stored.managedBy)
      throw new ConflictError(`channel "${stored.name}" is managed by the configuration file`);
    await this.repository.delete(id);
    this.events.emit('channel', { id, action: 'deleted' });
  }

  /** A definition checked as create would, with secrets as given (channel test, the configuration file). */
  checkedDraft(input: ChannelInputDto): { notifier: Notifier; draft: ChannelDraft } {
    const draft = this.draft(null, input);
    return { notifier: this.notifierOf(draft.type), draft };
  }

  async mustFind(id: number): Promise<ChannelEntity> {
    const channel = await this.repository.byId(id);
    if (!channel) throw new NotFoundError(`no channel with id ${id}`);
    return channel;
  }

  notifierOf(type: string): Notifier {
    const notifier = this.catalogue.get(type);
    if (!notifier) throw new InvalidInputError(`type ${type} has no sender in this build`);
    return notifier;
  }

  view(channel: ChannelEntity): ChannelDto {
    const config = maskSecrets(channel.config, this.secretFields(channel.type));
    return {
      id: channel.id,
      name: channel.name,
      type: channel.type,
      config,
      enabled: channel.enabled,
      title_template: channel.titleTemplate,
      body_template: channel.bodyTemplate,
      last_error: channel.lastError,
      last_error_at: channel.lastErrorAt === null ? null : new Date(channel.lastErrorAt).toISOString(),
      managed_by: channel.managedBy,
    };
  }

  private secretFields(type: string): string[] {
    return (this.catalogue.get(type)?.definition.fields ?? []).filter((f) => f.secret).map((f) => f.name);
  }

  /** Absent fields keep the stored value; a secret sent back as the marker keeps the stored secret. */
  private draft(stored: ChannelEntity | null, input: ChannelInputDto): ChannelDraft {
    const draft: ChannelDraft = {
      name: (input.name ?? stored?.name ?? '').trim(),
      type: input.type ?? stored?.type ?? '',
      config: { ...(input.config ?? stored?.config ?? CHANNEL_DEFAULTS.config) },
      enabled: input.enabled ?? stored?.enabled ?? CHANNEL_DEFAULTS.enabled,
      title_template: input.title_template ?? stored?.titleTemplate ?? CHANNEL_DEFAULTS.title_template,
      body_template: input.body_template ?? stored?.bodyTemplate ?? CHANNEL_DEFAULTS.body_template,
    };
    if (!draft.name) throw new InvalidInputError('name is required');
    if (!draft.type) throw new InvalidInputError('type is required');
    const notifier = this.notifierOf(draft.type);
    restoreSecrets(
      draft.config,
      stored && stored.type === draft.type ? stored.config : null,
      this.secretFields(draft.type),
      'config',
    );
    const problem = notifier.validate(draft.config);
    if (problem) throw new InvalidInputError(problem);
    for (const [field, template] of [
      ['title_template', draft.title_template],
      ['body_template', draft.body_template],
    ] as const) {
      try {
        if (template.trim()) parseTemplate(template);
      } catch (error) {
        if (error instanceof TemplateParseError) throw new InvalidInputError(`${field}: ${error.message}`);
        throw error;
      }
    }
    return draft;
  }
}
