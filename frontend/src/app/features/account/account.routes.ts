import { Routes } from '@angular/router';

import { AccountPageComponent } from './account-page.component';

export const ACCOUNT_ROUTES: Routes = [
  { path: '', title: 'app.title.account', component: AccountPageComponent },
];
