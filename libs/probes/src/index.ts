export * from './catalogue';
export * from './options';
export * from './probe';
export * from './ping/capability';
export { COMMON_OPTIONS } from './probe-messages';
export * from './push/push-token';
export * from './draft-probe';
export { isBlockedAddress, isBlockedName } from './address-guard';
export { liftUrlCredentials, type LiftedCredentials } from './http/url-credentials';
