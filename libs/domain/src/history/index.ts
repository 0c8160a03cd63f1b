export * from './history-range';
export * from './rollup-bucket';
export * from './rollup-plan';
export * from './series';
