export * from './badges';
export * from './days';
export * from './language';
export * from './page-strings';
export * from './public-page';
export * from './public-state';
export * from './render-page';
