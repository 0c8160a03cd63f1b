import { Module } from '@nestjs/common';
import { DoctorController } from './doctor.controller';
import { DoctorService } from './doctor.service';

/** The self-check over HTTP (the scheduler module, global, provides the runtime it reads). */
@Module({ controllers: [DoctorController], providers: [DoctorService] })
export class DoctorModule {}
