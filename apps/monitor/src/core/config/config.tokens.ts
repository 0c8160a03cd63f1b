/** Injection token of the validated MonitorConfig. */
export const MONITOR_CONFIG = Symbol('MONITOR_CONFIG');
