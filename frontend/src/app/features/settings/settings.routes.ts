import { Routes } from '@angular/router';

import { SettingsPageComponent } from './settings-page.component';

export const SETTINGS_ROUTES: Routes = [
  { path: '', title: 'app.title.settings', component: SettingsPageComponent },
];
