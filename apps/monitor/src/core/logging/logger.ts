import pino, { DestinationStream, Logger } from 'pino';
import type { LogLevel } from '../config/monitor-config';

export type AppLogger = Logger;

/** JSON lines on stdout: `level` as a word, `time` as ISO 8601, `msg`, then fields. */
export function createLogger(level: LogLevel = 'info', destination?: DestinationStream): AppLogger {
  return pino(
    {
      level,
      base: undefined,
      messageKey: 'msg',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? pino.destination({ fd: 1, sync: true }),
  );
}
