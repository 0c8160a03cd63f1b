import { Routes } from '@angular/router';

import { operatorGuard } from './admin.guard';
import { AdminPageComponent } from './admin-page.component';

export const ADMIN_ROUTES: Routes = [
  { path: '', title: 'app.title.admin', canActivate: [operatorGuard], component: AdminPageComponent },
];
