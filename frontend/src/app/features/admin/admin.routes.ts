import { Routes } from '@angular/router';

import { roleGuard } from '../../core/session/session.guards';
import { AdminPageComponent } from './admin-page.component';

/** `/settings/administration`: operators and administrators; viewers go to the status page (the entry is not in their sub-navigation either). */
export const ADMIN_ROUTES: Routes = [
  { path: '', title: 'app.title.admin', canActivate: [roleGuard('operator')], component: AdminPageComponent },
];
