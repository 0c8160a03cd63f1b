import { Inject, Injectable } from '@nestjs/common';
import type { ProbeResult, PushToken, Sensor, SensorStatus } from '@monitor/contracts';
import { ConflictError, ForbiddenError, InvalidInputError, NotFoundError, pushUrl } from '@monitor/domain';
import { newPushToken, ProbeCatalogue, restrictedDraftRefusal } from '@monitor/probes';
import { Clock } from '../core/clock/clock';
import { MONITOR_CONFIG } from '../core/config/config.tokens';
import type { MonitorConfig } from '../core/config/monitor-config';
import { UnitOfWork, type SqlExecutor } from '../core/database/unit-of-work';
import { EventBus } from '../core/events/event-bus';
import type { SensorInputDto } from './dto/sensor.dto';
import { toDefinition } from './sensor-definition';
import { SensorReferences } from './sensor-references';
import { SensorScheduling } from './sensor-scheduling';
import { draftColumns, mergeDraft, type SensorDraft, storedDraft } from './sensor-input';
import type { SensorEntity } from './sensor.entity';
import { toSensorView } from './sensor.view';
import { SensorsRepository } from './sensors.repository';

/** Sensor definitions: validation, storage, and keeping the scheduler in step with them. */
@Injectable()
export class SensorsService {
  constructor(
    private readonly unit: UnitOfWork,
    private readonly repository: SensorsRepository,
    private readonly references: SensorReferences,
    private readonly scheduling: SensorScheduling,
    private readonly catalogue: ProbeCatalogue,
    private readonly events: EventBus,
    private readonly clock: Clock,
    @Inject(MONITOR_CONFIG) private readonly config: MonitorConfig,
  ) {}

  async list(): Promise<Sensor[]> {
    const { sensors, channels } = await this.repository.all();
    const sites = await this.references.siteNames();
    return sensors.map((s) =>
      toSensorView(
        s,
        channels.get(s.id) ?? [],
        s.siteId === null ? '' : (sites.get(s.siteId) ?? ''),
        this.scheduling.live(s.id),
        this.catalogue,
      ),
    );
  }

  /**
   * Name, status and whether enabled of the given sensors, from memory (the runtime follows every
   * change): what a public status page shows, without reading and formatting every sensor.
   * Unknown ids are left out; each sensor once, in the order given.
   */
  publicStates(
    ids: Iterable<number>,
  ): { id: number; name: string; status: SensorStatus; enabled: boolean }[] {
    return [...new Set(ids)].flatMap((id) => {
      const entry = this.scheduling.live(id);
      if (!entry) return [];
      const { name, enabled } = entry.definition;
      return [{ id, name, status: entry.state.status, enabled }];
    });
  }

  async get(id: number): Promise<Sensor> {
    const found = await this.repository.one(id);
    if (!found) throw new NotFoundError(`no sensor with id ${id}`);
    const site = await this.references.siteName(found.sensor.siteId);
    return toSensorView(found.sensor, found.channelIds, site, this.scheduling.live(id), this.catalogue);
  }

  async create(input: SensorInputDto): Promise<Sensor> {
    const draft = mergeDraft(null, input, this.catalogue);
    // atomically: the site, channels and parent checked here cannot be deleted, nor a cycle or a
    // second sensor with the same place in the order be written, before this commits (PostgreSQL).
    const saved = await this.unit.atomically(async (tx) => {
      const columns = await this.columns(draft, tx, null);
      const sensor = await this.repository.insert(tx, columns, null, this.clock.now());
      await this.repository.replaceChannels(tx, sensor.id, draft.channels);
      return sensor;
    });
    await this.scheduling.reconcile(saved.id, toDefinition(saved, draft.channels));
    this.events.emit('sensor', { id: saved.id, action: 'created' });
    const view = toSensorView(
      saved,
      draft.channels,
      draft.site,
      this.scheduling.live(saved.id),
      this.catalogue,
    );
    // The one answer that shows a push token in clear; later ones mask it (rotate to see a new one).
    if (saved.type === 'push') view.options = { ...view.options, token: saved.options.token };
    return view;
  }

  async update(id: number, input: SensorInputDto): Promise<Sensor> {
    const found = await this.mustFind(id);
    if (found.sensor.managedBy)
      throw new ConflictError(`sensor "${found.sensor.name}" is managed by the configuration file`);
    const stored = await this.draftOf(found.sensor, found.channelIds);
    const draft = mergeDraft(stored, input, this.catalogue);
    const wasEnabled = found.sensor.enabled;
    await this.unit.atomically(async (tx) => {
      // Deleted, or taken over by the configuration file, since it was read above.
      const current = await this.repository.one(id, tx);
      if (!current) throw new NotFoundError(`no sensor with id ${id}`);
      if (current.sensor.managedBy)
        throw new ConflictError(`sensor "${current.sensor.name}" is managed by the configuration file`);
      const columns = await this.columns(draft, tx, id);
      await this.repository.update(tx, found.sensor, columns, this.clock.now());
      await this.repository.replaceChannels(tx, id, draft.channels);
    });
    await this.scheduling.reconcile(id);
    if (wasEnabled !== draft.enabled) await this.scheduling.command(id, draft.enabled ? 'resume' : 'pause');
    this.events.emit('sensor', { id, action: 'updated' });
    return this.get(id);
  }

  /** PATCH: only `enabled` (pause and resume). */
  async setEnabled(id: number, enabled: boolean): Promise<Sensor> {
    const found = await this.mustFind(id);
    if (found.sensor.managedBy)
      throw new ConflictError(`sensor "${found.sensor.name}" is managed by the configuration file`);
    if (found.sensor.enabled !== enabled) {
      await this.repository.setEnabled(id, enabled, this.clock.now());
      await this.scheduling.reconcile(id);
      await this.scheduling.command(id, enabled ? 'resume' : 'pause');
      this.events.emit('sensor', { id, action: 'updated' });
    }
    return this.get(id);
  }

  /** Deletes the sensor with its results, rollups and incidents (one statement, cascading). */
  async remove(id: number): Promise<void> {
    const found = await this.mustFind(id);
    if (found.sensor.managedBy)
      throw new ConflictError(`sensor "${found.sensor.name}" is managed by the configuration file`);
    await this.repository.delete(id);
    await this.scheduling.reconcile(id);
    await this.references.sensorDeleted();
    this.events.emit('sensor', { id, action: 'deleted' });
  }

  /**
   * Checks a draft the way create does; with `probe`, runs it once (stores nothing). Below
   * administrator the run is restricted (see draft-probe.ts): no request shaping or checks of the
   * peer's answer (403), no link-local or metadata address (400), and a message without peer text.
   */
  async validate(
    input: SensorInputDto,
    probe: boolean,
    admin: boolean,
  ): Promise<{ ok: true; result?: ProbeResult }> {
    const draft = mergeDraft(null, input, this.catalogue);
    await this.unit.transaction(async (tx) => {
      await this.columns(draft, tx, null);
    });
    if (!probe) return { ok: true };
    const probeOfType = this.catalogue.get(draft.type);
    if (!admin && probeOfType) {
      const refusal = await restrictedDraftRefusal(probeOfType, draft.target, draft.options);
      if (refusal?.kind === 'forbidden') throw new ForbiddenError(refusal.message);
      if (refusal) throw new InvalidInputError(refusal.message);
    }
    // Probed once as a sensor of its own: no id, parent, site or channels, and enabled.
    const definition = toDefinition(
      { ...draftColumns(draft, null), id: 0, enabled: true, parentId: null },
      [],
    );
    return { ok: true, result: await this.scheduling.probeDraft(definition, !admin) };
  }

  /**
   * A new token for a push sensor: the old one stops working at once (the token index checks every
   * hit against the definition). The deadline is kept: rotating is not a push.
   */
  async rotatePushToken(id: number): Promise<PushToken> {
    const token = newPushToken();
    await this.unit.atomically(async (tx) => {
      const found = await this.repository.one(id, tx);
      if (!found) throw new NotFoundError(`no sensor with id ${id}`);
      if (found.sensor.type !== 'push') throw new InvalidInputError(`sensor ${id} is not a push sensor`);
      if (found.sensor.managedBy)
        throw new ConflictError(`sensor "${found.sensor.name}" is managed by the configuration file`);
      const draft = await this.draftOf(found.sensor, found.channelIds);
      const columns = await this.columns({ ...draft, options: { ...draft.options, token } }, tx, id);
      await this.repository.update(tx, found.sensor, columns, this.clock.now());
    });
    await this.scheduling.reconcile(id);
    this.events.emit('sensor', { id, action: 'updated' });
    const url = pushUrl(this.config.base_url, token);
    return url === undefined ? { token } : { token, url };
  }

  /** Run now: probes once and stores the result, outside the state machine. */
  async probeNow(id: number): Promise<ProbeResult> {
    const found = await this.mustFind(id);
    if (found.sensor.type === 'push')
      throw new InvalidInputError('push sensors are not probed: their results arrive by push');
    const result = await this.scheduling.probeNow(id);
    if (!result) throw new NotFoundError(`no sensor with id ${id}`);
    return result;
  }

  async setOrder(ids: number[]): Promise<void> {
    const unique = [...new Set(ids)];
    await this.repository.setOrder(unique);
    for (const id of unique) this.events.emit('sensor', { id, action: 'updated' });
  }

  private async mustFind(id: number) {
    const found = await this.repository.one(id);
    if (!found) throw new NotFoundError(`no sensor with id ${id}`);
    return found;
  }

  private async draftOf(sensor: SensorEntity, channelIds: number[]): Promise<SensorDraft> {
    return storedDraft(sensor, channelIds, await this.references.siteName(sensor.siteId));
  }

  /** Resolves names and references (site, channels, parent) to stored columns, or refuses with 400. */
  private async columns(draft: SensorDraft, tx: SqlExecutor, id: number | null) {
    const siteId = await this.references.siteId(tx, draft.site);
    await this.references.checkChannels(tx, draft.channels);
    if (draft.parent_id !== null) await this.checkParent(tx, id, draft.parent_id);
    return draftColumns(draft, siteId);
  }

  private async checkParent(tx: SqlExecutor, id: number | null, parentId: number): Promise<void> {
    if (parentId === id) throw new InvalidInputError('parent_id: a sensor cannot be its own parent');
    const parents = await this.repository.parents(tx);
    if (!parents.has(parentId)) throw new InvalidInputError(`parent_id: no sensor with id ${parentId}`);
    for (
      let cursor: number | null | undefined = parentId, hops = 0;
      cursor != null && hops <= parents.size;
      hops++
    ) {
      if (cursor === id) throw new InvalidInputError('parent_id: a sensor cannot be its own ancestor');
      cursor = parents.get(cursor);
    }
  }
}
