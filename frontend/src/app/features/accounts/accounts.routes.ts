import { Routes } from '@angular/router';

import { AccountsPageComponent } from './accounts-page.component';

export const ACCOUNTS_ROUTES: Routes = [
  { path: '', title: 'app.title.accounts', component: AccountsPageComponent },
];
