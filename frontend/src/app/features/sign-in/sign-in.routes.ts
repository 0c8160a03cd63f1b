import { Routes } from '@angular/router';

import { SignInPageComponent } from './sign-in-page.component';

export const SIGN_IN_ROUTES: Routes = [
  { path: '', title: 'app.title.signIn', component: SignInPageComponent },
];
