import { CdkDrag, CdkDragDrop, CdkDragHandle, CdkDropList, CdkDropListGroup } from '@angular/cdk/drag-drop';
import {
  ChangeDetectionStrategy,
  Component,
  ElementRef,
  Injector,
  afterNextRender,
  computed,
  inject,
  input,
  model,
  signal,
} from '@angular/core';
import { STATUS_PAGE_LIMITS, type Sensor } from '@monitor/contracts';
import { TranslocoPipe } from '@jsverse/transloco';

import { t } from '../../core/i18n/i18n';
import { focusAfterRender, inputValue } from '../../shared/forms/form-helpers';
import { SensorPickerComponent } from './sensor-picker.component';
import { type DraftSection, moveIn, moveSensor, newSection, stepTarget } from './status-page.draft';

/**
 * A page's sections and the sensors in each, in order. Sensors move by dragging (mouse, touch; also
 * into another section) or with the up and down buttons, which step past a section's edge into the
 * next one, so the keyboard can do everything a drag can.
 */
@Component({
  selector: 'app-sections-editor',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [CdkDrag, CdkDragHandle, CdkDropList, CdkDropListGroup, TranslocoPipe, SensorPickerComponent],
  templateUrl: './sections-editor.component.html',
  styleUrl: './sections-editor.component.css',
})
export class SectionsEditorComponent {
  private readonly injector = inject(Injector);
  private readonly host = inject<ElementRef<HTMLElement>>(ElementRef);

  readonly sections = model.required<readonly DraftSection[]>();
  readonly sensors = input.required<readonly Sensor[]>();
  readonly readOnly = input(false);

  protected readonly limits = STATUS_PAGE_LIMITS;
  /** The section whose sensor picker is open (its key). */
  protected readonly picking = signal<number | undefined>(undefined);
  /** What the last move did, for screen readers. */
  protected readonly announcement = signal('');

  private readonly names = computed(() => new Map(this.sensors().map((sensor) => [sensor.id, sensor.name])));

  protected name(id: number): string {
    return this.names().get(id) ?? t('statusPages.sections.unknownSensor', { id });
  }

  protected sectionName(section: DraftSection, index: number): string {
    return section.title.trim() || t('statusPages.sections.untitled', { number: index + 1 });
  }

  protected addSection(): void {
    const section = newSection();
    this.sections.update((sections) => [...sections, section]);
    this.focus(`#section-title-${section.key}`);
  }

  protected rename(index: number, event: Event): void {
    const title = inputValue(event);
    this.sections.update((sections) =>
      sections.map((section, at) => (at === index ? { ...section, title } : section)),
    );
  }

  protected removeSection(index: number): void {
    this.sections.update((sections) => sections.filter((_, at) => at !== index));
    this.focus('#add-section');
  }

  protected moveSection(index: number, step: -1 | 1): void {
    const key = this.sections()[index].key;
    this.sections.update((sections) => moveIn(sections, index, index + step));
    this.focusStep(`[data-section="${key}"] > .section-actions`, step);
  }

  protected addSensor(index: number, id: number): void {
    this.sections.update((sections) =>
      sections.map((section, at) =>
        at === index && !section.sensors.includes(id)
          ? { ...section, sensors: [...section.sensors, id] }
          : section,
      ),
    );
    this.announcement.set(t('statusPages.sections.added', { name: this.name(id) }));
  }

  protected removeSensor(index: number, position: number): void {
    const section = this.sections()[index];
    const id = section.sensors[position];
    this.sections.update((sections) =>
      sections.map((item, at) =>
        at === index ? { ...item, sensors: item.sensors.filter((_, where) => where !== position) } : item,
      ),
    );
    this.announcement.set(t('statusPages.sections.removed', { name: this.name(id) }));
    this.focus(`#section-title-${section.key}`);
  }

  protected canStep(index: number, position: number, step: -1 | 1): boolean {
    const sections = this.sections();
    const target = stepTarget(sections, { section: index, index: position }, step);
    if (!target) return false;
    const id = sections[index].sensors[position];
    return target.section === index || !sections[target.section].sensors.includes(id);
  }

  protected step(index: number, position: number, step: -1 | 1): void {
    const before = this.sections();
    const target = stepTarget(before, { section: index, index: position }, step);
    if (!target) return;
    const id = before[index].sensors[position];
    const after = moveSensor(before, { section: index, index: position }, target);
    if (after === before) return;
    this.sections.set(after);
    const section = after[target.section];
    this.announcement.set(
      t('statusPages.sections.moved', {
        name: this.name(id),
        position: target.index + 1,
        section: this.sectionName(section, target.section),
      }),
    );
    this.focusStep(`[data-sensor="${section.key}:${id}"]`, step);
  }

  protected dropped(event: CdkDragDrop<number, number, number>): void {
    const from = { section: event.previousContainer.data, index: event.previousIndex };
    const to = { section: event.container.data, index: event.currentIndex };
    if (from.section === to.section && from.index === to.index) return;
    const before = this.sections();
    const after = moveSensor(before, from, to);
    if (after === before) {
      this.announcement.set(t('statusPages.sections.alreadyThere', { name: this.name(event.item.data) }));
      return;
    }
    this.sections.set(after);
    this.announcement.set(
      t('statusPages.sections.moved', {
        name: this.name(event.item.data),
        position: to.index + 1,
        section: this.sectionName(after[to.section], to.section),
      }),
    );
  }

  /** Keeps focus on the button pressed, or on its partner when the move disabled it. */
  private focusStep(container: string, step: -1 | 1): void {
    afterFocus(this.injector, this.host.nativeElement, container, step);
  }

  private focus(selector: string): void {
    focusAfterRender(this.injector, this.host.nativeElement, selector);
  }
}

function afterFocus(injector: Injector, root: HTMLElement, container: string, step: -1 | 1): void {
  const find = (which: number) =>
    root.querySelector<HTMLButtonElement>(`${container} [data-step="${which}"]`);
  afterNextRender(
    {
      write: () => {
        const pressed = find(step);
        (pressed && !pressed.disabled ? pressed : find(-step))?.focus();
      },
    },
    { injector },
  );
}
