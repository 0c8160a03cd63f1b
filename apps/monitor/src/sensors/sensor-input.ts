import {
  InvalidInputError,
  maskSecrets,
  normalizeTags,
  restoreSecrets,
  SENSOR_DEFAULTS,
} from '@monitor/domain';
import type { ProbeCatalogue } from '@monitor/probes';
import type { SensorInputDto } from './dto/sensor.dto';

/** The writable fields of a sensor after defaults and partial-update rules are applied. */
export interface SensorDraft {
  name: string;
  type: string;
  target: string;
  interval: number;
  retries: number;
  reminder_every: number;
  group: string;
  tags: string[];
  site: string;
  enabled: boolean;
  options: Record<string, unknown>;
  channels: number[];
  parent_id: number | null;
}

/** A fresh copy of the definition's defaults for every new draft. */
const draftDefaults = (): Omit<SensorDraft, 'name' | 'type' | 'target'> => ({
  interval: SENSOR_DEFAULTS.interval,
  retries: SENSOR_DEFAULTS.retries,
  reminder_every: SENSOR_DEFAULTS.reminder_every,
  group: SENSOR_DEFAULTS.group,
  tags: [...SENSOR_DEFAULTS.tags],
  site: SENSOR_DEFAULTS.site,
  enabled: SENSOR_DEFAULTS.enabled,
  options: { ...SENSOR_DEFAULTS.options },
  channels: [],
  parent_id: SENSOR_DEFAULTS.parent,
});

/**
 * PUT semantics: every field optional; an absent field keeps the stored value; "" and [] clear.
 * Secret options sent back as the marker keep their stored value.
 */
export function mergeDraft(
  stored: SensorDraft | null,
  input: SensorInputDto,
  catalogue: ProbeCatalogue,
): SensorDraft {
  const base: SensorDraft = stored ?? { name: '', type: '', target: '', ...draftDefaults() };
  const draft: SensorDraft = {
    name: (input.name ?? base.name).trim(),
    type: input.type ?? base.type,
    target: (input.target ?? base.target).trim(),
    interval: input.interval ?? base.interval,
    retries: input.retries ?? base.retries,
    reminder_every: input.reminder_every ?? base.reminder_every,
    group: (input.group ?? base.group).trim(),
    tags: input.tags ? normalizeTags(input.tags) : base.tags,
    site: (input.site ?? base.site).trim(),
    enabled: input.enabled ?? base.enabled,
    options: input.options ? { ...input.options } : base.options,
    channels: input.channels ? [...new Set(input.channels)] : base.channels,
    parent_id: input.parent_id === undefined ? base.parent_id : input.parent_id,
  };
  if (!draft.name) throw new InvalidInputError('name is required');
  if (!draft.type) throw new InvalidInputError('type is required');
  if (!draft.target) throw new InvalidInputError('target is required');
  const probe = catalogue.get(draft.type);
  if (!probe) throw new InvalidInputError(`type ${draft.type} has no probe in this build`);
  restoreSecrets(
    draft.options,
    stored && stored.type === draft.type ? stored.options : null,
    probe.secretOptions,
    'options',
  );
  const timeout = draft.options.timeout;
  if (typeof timeout === 'number' && timeout > draft.interval) {
    throw new InvalidInputError(`options.timeout must not exceed interval (${draft.interval} s)`);
  }
  const problem = probe.validate(draft.target, draft.options);
  if (problem) throw new InvalidInputError(problem);
  return draft;
}

/** The stored columns of a checked draft, once its site name is resolved to an id. */
export const draftColumns = (draft: SensorDraft, siteId: number | null) => ({
  name: draft.name,
  type: draft.type,
  target: draft.target,
  interval: draft.interval,
  retries: draft.retries,
  reminderEvery: draft.reminder_every,
  group: draft.group,
  tags: draft.tags,
  siteId,
  parentId: draft.parent_id,
  enabled: draft.enabled,
  options: draft.options,
});

/** Secret options replaced by the marker, for every response. */
export const maskOptions = (type: string, options: Record<string, unknown>, catalogue: ProbeCatalogue) =>
  maskSecrets(options, catalogue.get(type)?.secretOptions ?? []);
