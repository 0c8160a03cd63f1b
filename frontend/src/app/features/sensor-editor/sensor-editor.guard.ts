import { roleGuard } from '../../core/session/session.guards';

/**
 * The sensor editor is for administrators: anyone else goes to the sensor's page (or, for
 * `/sensors/new`, the status page).
 */
export const sensorEditorGuard = roleGuard('admin', (route) => {
  const id = route.paramMap.get('id');
  return id === null ? ['/'] : ['/sensors', id];
});
