import { Routes } from '@angular/router';

import { SitesPageComponent } from './sites-page.component';

export const SITES_ROUTES: Routes = [{ path: '', title: 'app.title.sites', component: SitesPageComponent }];
