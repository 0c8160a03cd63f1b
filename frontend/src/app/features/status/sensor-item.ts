import { Directive, computed, input, output } from '@angular/core';

import { statusDisplay } from '../../shared/format/sensor-status';
import { SensorActions } from './sensor-actions';
import type { SensorRow } from './status-sensors.store';

/**
 * What a card and a list row share: the sensor (each reads its own signal, so a live result redraws
 * that one element only), its actions, the inputs of its ⋯ menu and the host attributes the board
 * and the tests find it by.
 */
@Directive({
  host: {
    '[class.changed]': 'row().changed()',
    '[attr.data-changed]': "row().changed() ? 'true' : null",
    '[class.highlighted]': 'highlighted()',
    '[attr.data-highlighted]': "highlighted() ? 'true' : null",
    '[attr.data-testid]': "'sensor-row-' + row().id",
    '[attr.data-status]': 'sensor().status',
    '[attr.data-sensor-name]': 'sensor().name',
    '[attr.draggable]': "canReorder() ? 'true' : null",
  },
})
export abstract class SensorItem {
  readonly row = input.required<SensorRow>();
  readonly canOperate = input(false);
  readonly canEdit = input(false);
  readonly canReorder = input(false);
  /** Rearranging would be allowed but for the order: the menu says so. */
  readonly rearrangeHint = input(false);
  readonly isFirst = input(false);
  readonly isLast = input(false);
  readonly moving = input(false);
  /** The sensor was just created (the editor returned here): marked for a moment. */
  readonly highlighted = input(false);
  /** -1: one place earlier; 1: one place later. */
  readonly move = output<-1 | 1>();

  readonly sensor = computed(() => this.row().sensor());
  protected readonly display = computed(() => statusDisplay(this.sensor().status));
  readonly actions = new SensorActions(() => this.sensor());
  /** Whether there is anything for the ⋯ menu to offer. */
  protected readonly hasMenu = computed(() => this.canOperate() || this.canEdit() || this.canReorder());
}
