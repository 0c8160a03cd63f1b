import { ChangeDetectionStrategy, Component, computed, input, output, signal } from '@angular/core';
import type { Sensor } from '@monitor/contracts';
import { TranslocoPipe } from '@jsverse/transloco';

import { inputValue } from '../../shared/forms/form-helpers';

/** How many matches are offered at once; typing narrows the rest down. */
const SHOWN = 8;

/** A search field and the sensors matching it, each with a button that adds it to a section. */
@Component({
  selector: 'app-sensor-picker',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [TranslocoPipe],
  template: `
    <div class="field">
      <label [for]="prefix() + '-search'">{{ 'statusPages.picker.search' | transloco }}</label>
      <input
        class="input"
        type="search"
        autocomplete="off"
        [id]="prefix() + '-search'"
        [attr.aria-describedby]="prefix() + '-count'"
        [value]="query()"
        (input)="query.set(value($event))"
      />
      <p class="hint" aria-live="polite" [id]="prefix() + '-count'">
        {{ 'statusPages.picker.count' | transloco: { shown: shown().length, total: matches().length } }}
      </p>
    </div>
    @if (shown().length > 0) {
      <ul class="matches">
        @for (sensor of shown(); track sensor.id) {
          <li>
            <button
              type="button"
              class="button button-small"
              [attr.data-add-sensor]="sensor.name"
              (click)="picked.emit(sensor.id)"
            >
              <span aria-hidden="true">+ {{ sensor.name }}</span
              ><span class="visually-hidden">{{
                'statusPages.picker.addNamed' | transloco: { name: sensor.name }
              }}</span>
            </button>
          </li>
        }
      </ul>
    }
  `,
  styles: `
    :host {
      display: grid;
      gap: 0.5rem;
    }
    .matches {
      display: flex;
      flex-wrap: wrap;
      gap: 0.4rem;
      margin: 0;
      padding: 0;
      list-style: none;
    }
    .matches .button {
      max-inline-size: 100%;
      overflow-wrap: anywhere;
      text-align: start;
    }
  `,
})
export class SensorPickerComponent {
  readonly sensors = input.required<readonly Sensor[]>();
  /** Sensors not offered (already in the section). */
  readonly exclude = input<readonly number[]>([]);
  /** Unique on the page: the ids of the controls start with it. */
  readonly prefix = input.required<string>();
  readonly picked = output<number>();

  protected readonly query = signal('');
  protected readonly matches = computed(() => {
    const query = this.query().trim().toLocaleLowerCase();
    const excluded = new Set(this.exclude());
    return this.sensors()
      .filter((sensor) => !excluded.has(sensor.id))
      .filter((sensor) => query === '' || sensor.name.toLocaleLowerCase().includes(query))
      .sort((a, b) => a.name.localeCompare(b.name));
  });
  protected readonly shown = computed(() => this.matches().slice(0, SHOWN));

  protected value(event: Event): string {
    return inputValue(event);
  }
}
