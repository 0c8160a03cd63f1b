export * from './push-deadlines';
export * from './push-input';
export * from './push-rate';
export * from './push-url';
