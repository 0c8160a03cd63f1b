import {
  ChangeDetectionStrategy,
  Component,
  computed,
  effect,
  inject,
  input,
  signal,
  untracked,
} from '@angular/core';
import { Router, RouterLink } from '@angular/router';
import { TranslocoPipe } from '@jsverse/transloco';
import { SENSOR_TYPES, type SensorType } from '@monitor/contracts';
import {
  SENSOR_GROUP,
  SENSOR_INTERVAL,
  SENSOR_NAME,
  SENSOR_REMINDER_EVERY,
  SENSOR_RETRIES,
  SENSOR_TARGET,
} from '@monitor/domain/sensor.definition';

import { t } from '../../core/i18n/i18n';
import { formatMs } from '../../core/i18n/format';
import { injectFocus, inputValue } from '../../shared/forms/form-helpers';
import { ErrorAlertComponent } from '../../shared/ui/error-alert.component';
import { LoadingIndicatorComponent } from '../../shared/ui/loading-indicator.component';
import { SensorEditorStore } from './sensor-editor.store';
import { type SensorDraft, TYPE_INFO, typeInfo } from './sensor-form';
import { CreatedPushToken } from './created-push-token';
import { PushUrlComponent } from './push-url.component';
import { SensorOptionsComponent } from './sensor-options.component';

type TextField =
  'name' | 'target' | 'interval' | 'retries' | 'reminderEvery' | 'group' | 'tags' | 'site' | 'parentId';

/** A whole-number field of the sensor, with its bounds and default. */
interface NumberField {
  readonly field: 'interval' | 'retries' | 'reminderEvery';
  /** The input's id; its hint's is `<id>-hint`. */
  readonly id: string;
  /** Catalogue keys; the hint takes `default`, `min` and `max`. */
  readonly label: string;
  readonly hint: string;
  readonly rule: { readonly min: number; readonly max: number; readonly fallback: number };
}

/**
 * `/sensors/new` and `/sensors/:id/edit` (administrators): every field of a sensor, the options of
 * its type, a server-side check (optionally with one probe) before saving, and delete.
 */
@Component({
  selector: 'app-sensor-editor-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    RouterLink,
    TranslocoPipe,
    ErrorAlertComponent,
    LoadingIndicatorComponent,
    SensorOptionsComponent,
    PushUrlComponent,
  ],
  providers: [SensorEditorStore],
  templateUrl: './sensor-editor-page.component.html',
  styleUrl: './sensor-editor-page.component.css',
})
export class SensorEditorPageComponent {
  protected readonly store = inject(SensorEditorStore);
  private readonly router = inject(Router);
  private readonly focus = injectFocus();

  /** Path parameter; absent on `/sensors/new`. */
  readonly id = input<string>();

  /** Bounds, defaults and lengths of the sensor definition the server checks against. */
  protected readonly limits = {
    name: SENSOR_NAME.maxLength,
    target: SENSOR_TARGET.maxLength,
    group: SENSOR_GROUP.maxLength,
  } as const;
  /** The interval, retries and reminder fields: drawn by one piece of the template, in this order. */
  protected readonly numberFields: readonly NumberField[] = [
    {
      field: 'interval',
      id: 'sensor-interval',
      label: 'editor.field.interval.label',
      hint: 'editor.field.interval.hint',
      rule: SENSOR_INTERVAL,
    },
    {
      field: 'retries',
      id: 'sensor-retries',
      label: 'editor.field.retries.label',
      hint: 'editor.field.retries.hint',
      rule: SENSOR_RETRIES,
    },
    {
      field: 'reminderEvery',
      id: 'sensor-reminder',
      label: 'editor.field.reminder.label',
      hint: 'editor.field.reminder.hint',
      rule: SENSOR_REMINDER_EVERY,
    },
  ];
  protected readonly types = TYPE_INFO.filter((info) => SENSOR_TYPES.includes(info.type));
  protected readonly confirmingDelete = signal(false);

  protected readonly sensorId = computed(() => {
    const id = this.id();
    return id !== undefined && /^[0-9]{1,15}$/.test(id) ? Number(id) : undefined;
  });
  private readonly createdTokens = inject(CreatedPushToken);
  /** A push sensor's token, handed over by the create that led here (the one time it is known). */
  protected readonly createdToken = computed(() => this.createdTokens.take(this.sensorId()));
  protected readonly isNew = computed(() => this.id() === undefined);
  protected readonly info = computed(() => typeInfo(this.store.draft().type));
  protected readonly targetLabel = computed(() => t(`editor.type.${this.info().type}.targetLabel`));
  protected readonly targetHint = computed(() => t(`editor.type.${this.info().type}.targetHint`));
  protected readonly heading = computed(() => {
    if (this.isNew()) return t('editor.heading.new');
    const name = this.store.original()?.name;
    return name ? t('editor.heading.edit', { name }) : t('editor.heading.editUnnamed');
  });
  protected readonly choicesError = computed(() => {
    const problems = this.store.choicesProblems();
    if (problems.length === 0) return undefined;
    return problems.map(({ list, message }) => t(`editor.choices.${list}`, { error: message })).join(' ');
  });
  protected readonly backLink = computed(() => (this.isNew() ? '/' : `/sensors/${this.id()}`));

  protected readonly checkError = computed(() => {
    const check = this.store.check();
    return check?.kind === 'error' ? check.message : undefined;
  });

  protected readonly probeSummary = computed(() => {
    const check = this.store.check();
    if (check?.kind !== 'probe') return undefined;
    const { result } = check;
    const parts: string[] = [];
    if (result.status_code !== null) parts.push(t('editor.check.statusCode', { code: result.status_code }));
    if (result.latency_ms !== null) parts.push(formatMs(result.latency_ms));
    const text = t('editor.check.probe', {
      success: result.success ? 'yes' : 'no',
      hasDetails: parts.length > 0 ? 'yes' : 'no',
      details: parts.join(', '),
      hasMessage: result.message ? 'yes' : 'no',
      message: result.message,
    });
    return { success: result.success, text };
  });

  constructor() {
    effect(() => {
      const isNew = this.isNew();
      const id = this.sensorId();
      untracked(() => {
        this.confirmingDelete.set(false);
        if (isNew || id !== undefined) void this.store.open(isNew ? undefined : id);
      });
    });
  }

  protected typeLabel(type: SensorType): string {
    return t(`editor.type.${type}.label`);
  }

  protected text(field: TextField): string {
    return this.store.draft()[field];
  }

  protected set(field: TextField, event: Event): void {
    this.store.patch({ [field]: inputValue(event) } as Partial<SensorDraft>);
  }

  protected setType(event: Event): void {
    const type = inputValue(event) as SensorType;
    if (SENSOR_TYPES.includes(type)) this.store.setType(type);
  }

  protected setEnabled(event: Event): void {
    this.store.patch({ enabled: (event.target as HTMLInputElement).checked });
  }

  protected toggleChannel(id: number, event: Event): void {
    this.store.toggleChannel(id, (event.target as HTMLInputElement).checked);
  }

  protected hasChannel(id: number): boolean {
    return this.store.draft().channels.includes(id);
  }

  protected async validate(probe: boolean): Promise<void> {
    await this.store.validate(probe);
    this.focus('#sensor-check');
  }

  protected async save(event: Event): Promise<void> {
    event.preventDefault();
    const created = this.isNew();
    const saved = await this.store.save();
    // A new sensor is shown where it lives, marked on the status page; an edited one on its own page.
    // A new push sensor opens its editor, where its URL is shown with the token this once.
    if (saved && created && saved.type === 'push') {
      const token = saved.options['token'];
      if (typeof token === 'string') this.createdTokens.hold(saved.id, token);
      await this.router.navigate(['/sensors', saved.id, 'edit']);
    } else if (saved && created) await this.router.navigate(['/'], { queryParams: { highlight: saved.id } });
    else if (saved) await this.router.navigate(['/sensors', saved.id]);
    else this.focus('#sensor-form-error');
  }

  protected askDelete(): void {
    this.confirmingDelete.set(true);
    this.focus('#confirm-delete');
  }

  protected cancelDelete(): void {
    this.confirmingDelete.set(false);
    this.focus('#sensor-delete');
  }

  protected async remove(): Promise<void> {
    if (await this.store.remove()) await this.router.navigateByUrl('/');
    else this.focus('#sensor-form-error');
  }
}
