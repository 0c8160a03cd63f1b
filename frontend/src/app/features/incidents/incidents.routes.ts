import { Routes } from '@angular/router';

import { IncidentsPageComponent } from './incidents-page.component';

export const INCIDENTS_ROUTES: Routes = [
  { path: '', title: 'app.title.incidents', component: IncidentsPageComponent },
];
