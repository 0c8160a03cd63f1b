import about from './about.json';
import account from './account.json';
import accounts from './accounts.json';
import admin from './admin.json';
import app from './app.json';
import auth from './auth.json';
import channels from './channels.json';
import common from './common.json';
import editor from './editor.json';
import incidents from './incidents.json';
import search from './search.json';
import sensorDetail from './sensorDetail.json';
import settings from './settings.json';
import sites from './sites.json';
import status from './status.json';
import statusPages from './statusPages.json';
import tour from './tour.json';

/** The English catalogue: one file per area of the dashboard, each under its own key. */
export default {
  about,
  account,
  accounts,
  admin,
  app,
  auth,
  channels,
  common,
  editor,
  incidents,
  search,
  sensorDetail,
  settings,
  sites,
  status,
  statusPages,
  tour,
};
