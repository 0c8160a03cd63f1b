import { Module } from '@nestjs/common';
import { AlertOutboxRepository } from './alert-outbox.repository';

/** The alert outbox on its own, so the sensor runtime can write to it without the channel API. */
@Module({ providers: [AlertOutboxRepository], exports: [AlertOutboxRepository] })
export class AlertOutboxModule {}
