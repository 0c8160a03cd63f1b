import { Routes } from '@angular/router';

import { AboutPageComponent } from './about-page.component';

export const ABOUT_ROUTES: Routes = [{ path: '', title: 'app.title.about', component: AboutPageComponent }];
