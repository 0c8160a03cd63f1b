import { Routes } from '@angular/router';

import { ChannelsPageComponent } from './channels-page.component';

export const CHANNELS_ROUTES: Routes = [
  { path: '', title: 'app.title.channels', component: ChannelsPageComponent },
];
