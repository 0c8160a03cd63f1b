import { LoggerService } from '@nestjs/common';
import type { AppLogger } from './logger';

/** Routes Nest's own messages into the JSON log; its start-up chatter is debug detail. */
export class NestLoggerAdapter implements LoggerService {
  constructor(private readonly logger: AppLogger) {}

  log(message: unknown, context?: string): void {
    this.logger.debug({ context }, String(message));
  }

  error(message: unknown, stackOrContext?: string, context?: string): void {
    const where = context ?? stackOrContext;
    // Start-up failures are reported once, as one line, by the command that started the process.
    if (where === 'ExceptionHandler' || where === 'NestApplication')
      this.logger.debug({ context: where }, String(message));
    else this.logger.error({ context: where }, String(message));
  }

  warn(message: unknown, context?: string): void {
    this.logger.warn({ context }, String(message));
  }

  debug(message: unknown, context?: string): void {
    this.logger.debug({ context }, String(message));
  }

  verbose(message: unknown, context?: string): void {
    this.logger.trace({ context }, String(message));
  }
}
