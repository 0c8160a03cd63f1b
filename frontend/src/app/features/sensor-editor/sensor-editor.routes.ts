import { Routes } from '@angular/router';

import { SensorEditorPageComponent } from './sensor-editor-page.component';
import { sensorEditorGuard } from './sensor-editor.guard';

/** Mounted at `sensors/new` and `sensors/:id/edit` (see app.routes.ts). */
export const SENSOR_NEW_ROUTES: Routes = [
  {
    path: '',
    title: 'app.title.newSensor',
    canActivate: [sensorEditorGuard],
    component: SensorEditorPageComponent,
  },
];

export const SENSOR_EDIT_ROUTES: Routes = [
  {
    path: '',
    title: 'app.title.editSensor',
    canActivate: [sensorEditorGuard],
    component: SensorEditorPageComponent,
  },
];
