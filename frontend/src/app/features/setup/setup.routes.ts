import { Routes } from '@angular/router';

import { SetupPageComponent } from './setup-page.component';

export const SETUP_ROUTES: Routes = [{ path: '', title: 'app.title.setup', component: SetupPageComponent }];
