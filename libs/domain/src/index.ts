export * from './duration';
export * from './errors';
