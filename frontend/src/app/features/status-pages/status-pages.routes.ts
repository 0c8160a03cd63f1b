import { Routes } from '@angular/router';

import { adminGuard } from '../../core/session/session.guards';
import { StatusPageEditorComponent } from './status-page-editor.component';
import { StatusPagesPageComponent } from './status-pages-page.component';

/** Mounted at `status-pages`: the list for everyone; a new page for administrators; one page (read or edited). */
export const STATUS_PAGES_ROUTES: Routes = [
  { path: '', title: 'app.title.statusPages', component: StatusPagesPageComponent },
  {
    path: 'new',
    title: 'app.title.newStatusPage',
    canActivate: [adminGuard],
    component: StatusPageEditorComponent,
  },
  { path: ':id', title: 'app.title.statusPage', component: StatusPageEditorComponent },
];
