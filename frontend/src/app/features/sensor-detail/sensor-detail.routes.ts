import { Routes } from '@angular/router';

import { SensorDetailPageComponent } from './sensor-detail-page.component';

export const SENSOR_DETAIL_ROUTES: Routes = [
  { path: ':id', title: 'app.title.sensor', component: SensorDetailPageComponent },
];
