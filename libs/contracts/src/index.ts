export * from './system';
export * from './auth';
export * from './sensors';
export * from './history';
export * from './examples';
export * from './sites';
export * from './live';
export * from './backup';
