import { Routes } from '@angular/router';

import { StatusPageComponent } from './status-page.component';

export const STATUS_ROUTES: Routes = [
  { path: '', title: 'app.title.status', component: StatusPageComponent },
];
