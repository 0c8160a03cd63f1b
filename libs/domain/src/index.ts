export * from './duration';
export * from './errors';
export * from './login-throttle';
