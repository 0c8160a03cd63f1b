export * from './duration';
export * from './errors';
export * from './login-throttle';
export * from './sensor-state.machine';
export * from './schedule-queue';
export * from './template';
export * from './alert-message';
export * from './stored-secrets';
