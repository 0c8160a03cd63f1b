import { Injectable, computed, inject, signal } from '@angular/core';
import type { ProbeResult, Sensor, SensorType } from '@monitor/contracts';

import { ApiCallError } from '../../core/api/api-call-error';
import { SensorEditorApi } from './sensor-editor.api';
import {
  type HeaderRow,
  type SensorDraft,
  draftFromSensor,
  emptyDraft,
  emptyOptions,
  requestBody,
} from './sensor-form';

export interface ChannelChoice {
  readonly id: number;
  readonly name: string;
}

/** A list of choices that could not be loaded, and the server's reason. */
export interface ChoicesProblem {
  readonly list: 'sites' | 'channels' | 'sensors';
  readonly message: string;
}

export interface SensorChoice {
  readonly id: number;
  readonly name: string;
}

/** What the last "Validate" said. */
export type CheckOutcome =
  | { readonly kind: 'ok' }
  | { readonly kind: 'error'; readonly message: string }
  | { readonly kind: 'probe'; readonly result: ProbeResult };

/**
 * The sensor editor's state: the draft as typed, the choices it offers (sites, channels, sensors),
 * and validate / save / delete against the API. One per editor page.
 */
@Injectable()
export class SensorEditorStore {
  private readonly api = inject(SensorEditorApi);

  /** The sensor being edited; undefined while creating. */
  readonly id = signal<number | undefined>(undefined);
  readonly original = signal<Sensor | undefined>(undefined);
  readonly draft = signal<SensorDraft>(emptyDraft());
  readonly loading = signal(false);
  readonly loadError = signal<string | undefined>(undefined);

  readonly sites = signal<readonly string[]>([]);
  readonly channels = signal<readonly ChannelChoice[]>([]);
  readonly sensors = signal<readonly SensorChoice[]>([]);
  /** Why lists of choices could not be loaded; empty when all loaded. */
  readonly choicesProblems = signal<readonly ChoicesProblem[]>([]);

  readonly busy = signal(false);
  readonly failure = signal<string | undefined>(undefined);
  readonly check = signal<CheckOutcome | undefined>(undefined);

  readonly readOnly = computed(() => Boolean(this.original()?.managed_by));
  /** Sensors that may be the parent: every other one (the server refuses cycles). */
  readonly parentChoices = computed(() => this.sensors().filter((sensor) => sensor.id !== this.id()));

  async open(id: number | undefined): Promise<void> {
    this.id.set(id);
    this.original.set(undefined);
    this.draft.set(emptyDraft());
    this.failure.set(undefined);
    this.check.set(undefined);
    this.loadError.set(undefined);
    void this.loadChoices();
    if (id === undefined) return;
    this.loading.set(true);
    try {
      const sensor = await this.api.get(id);
      this.original.set(sensor);
      this.draft.set(draftFromSensor(sensor));
    } catch (failure: unknown) {
      this.loadError.set(ApiCallError.from(failure).message);
    } finally {
      this.loading.set(false);
    }
  }

  private async loadChoices(): Promise<void> {
    const problems: ChoicesProblem[] = [];
    const load = async <T>(
      list: ChoicesProblem['list'],
      call: () => Promise<T>,
      apply: (value: T) => void,
    ) => {
      try {
        apply(await call());
      } catch (failure: unknown) {
        problems.push({ list, message: ApiCallError.from(failure).message });
      }
    };
    await Promise.all([
      load(
        'sites',
        () => this.api.sites(),
        (answer) => this.sites.set(answer.sites.map((site) => site.name)),
      ),
      load(
        'channels',
        () => this.api.channels(),
        (list) => this.channels.set(list.map(({ id, name }) => ({ id, name }))),
      ),
      load(
        'sensors',
        () => this.api.sensors(),
        (list) => this.sensors.set(list.map(({ id, name }) => ({ id, name }))),
      ),
    ]);
    this.choicesProblems.set(problems);
  }

  patch(change: Partial<SensorDraft>): void {
    this.draft.update((draft) => ({ ...draft, ...change }));
    this.check.set(undefined);
  }

  setType(type: SensorType): void {
    if (this.id() !== undefined) return;
    this.patch({ type, options: emptyOptions(type), headers: [], stored: [] });
  }

  setOption(name: string, value: string | boolean): void {
    this.patch({ options: { ...this.draft().options, [name]: value } });
  }

  setHeaders(headers: readonly HeaderRow[]): void {
    this.patch({ headers });
  }

  toggleChannel(id: number, on: boolean): void {
    const current = this.draft().channels.filter((channel) => channel !== id);
    this.patch({ channels: on ? [...current, id] : current });
  }

  /** Asks the server to check the draft (and, with `probe`, run it once); stores nothing. */
  async validate(probe: boolean): Promise<void> {
    if (this.busy()) return;
    this.busy.set(true);
    this.check.set(undefined);
    this.failure.set(undefined);
    try {
      const body = { ...requestBody(this.draft()), ...(probe ? { probe: true } : {}) };
      const answer = await this.api.validate(body);
      this.check.set(answer.result ? { kind: 'probe', result: answer.result } : { kind: 'ok' });
    } catch (failure: unknown) {
      this.check.set({ kind: 'error', message: ApiCallError.from(failure).message });
    } finally {
      this.busy.set(false);
    }
  }

  /** POST or PUT; resolves with the saved sensor, or undefined when the server refused (see `failure`). */
  async save(): Promise<Sensor | undefined> {
    if (this.busy() || this.readOnly()) return undefined;
    this.busy.set(true);
    this.failure.set(undefined);
    try {
      const body = requestBody(this.draft());
      const id = this.id();
      return id === undefined ? await this.api.create(body) : await this.api.update(id, body);
    } catch (failure: unknown) {
      this.failure.set(ApiCallError.from(failure).message);
      return undefined;
    } finally {
      this.busy.set(false);
    }
  }

  async remove(): Promise<boolean> {
    const id = this.id();
    if (id === undefined || this.busy() || this.readOnly()) return false;
    this.busy.set(true);
    this.failure.set(undefined);
    try {
      await this.api.remove(id);
      return true;
    } catch (failure: unknown) {
      this.failure.set(ApiCallError.from(failure).message);
      return false;
    } finally {
      this.busy.set(false);
    }
  }
}
