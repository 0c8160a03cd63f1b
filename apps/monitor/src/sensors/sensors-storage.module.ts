import { Module } from '@nestjs/common';
import { SensorsRepository } from './sensors.repository';

/**
 * The sensors' tables on their own: the scheduler reads and writes them, and the sensors' API in
 * turn drives the scheduler, so the repository cannot live in that module without a cycle.
 */
@Module({ providers: [SensorsRepository], exports: [SensorsRepository] })
export class SensorsStorageModule {}
