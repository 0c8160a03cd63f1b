/** Injection token of the process-wide pino logger. */
export const APP_LOGGER = Symbol('APP_LOGGER');
