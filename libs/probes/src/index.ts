export * from './catalogue';
export * from './options';
export * from './probe';
export * from './ping/capability';
export { COMMON_OPTIONS } from './probe-messages';
export * from './push/push-token';
