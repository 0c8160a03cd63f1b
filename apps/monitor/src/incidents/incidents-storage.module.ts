import { Module } from '@nestjs/common';
import { IncidentsRepository } from './incidents.repository';

/**
 * The incidents' table on its own: the sensor runtime opens and closes incidents, and the
 * incidents' API in turn drives the runtime (acknowledge), so the repository sits below both.
 */
@Module({ providers: [IncidentsRepository], exports: [IncidentsRepository] })
export class IncidentsStorageModule {}
