import { Routes } from '@angular/router';

import { operatorGuard } from './admin.guard';
import { AdminPageComponent } from './admin-page.component';

export const ADMIN_ROUTES: Routes = [
  { path: '', title: 'Administration', canActivate: [operatorGuard], component: AdminPageComponent },
];
