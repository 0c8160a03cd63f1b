import { DynamicModule, Module } from '@nestjs/common';
import { createProbeCatalogue, ProbeCatalogue } from '@monitor/probes';
import { AlertOutboxModule } from '../channels/alert-outbox.module';
import { HistoryModule } from '../history/history.module';
import { IncidentsRepository } from '../incidents/incidents.repository';
import { MaintenanceModule } from '../maintenance/maintenance.module';
import { SensorsRepository } from '../sensors/sensors.repository';
import { SCHEDULER_OPTIONS, SchedulerOptions, SchedulerService } from './scheduler.service';
import { SensorRuntimeService } from './sensor-runtime.service';
import { StateChangeWriter } from './state-change-writer';

/** The probes, the live sensor state and the loops that drive them. */
@Module({})
export class SchedulerModule {
  static forRoot(options: SchedulerOptions): DynamicModule {
    return {
      module: SchedulerModule,
      global: true,
      imports: [HistoryModule, MaintenanceModule, AlertOutboxModule],
      providers: [
        { provide: SCHEDULER_OPTIONS, useValue: options },
        { provide: ProbeCatalogue, useFactory: createProbeCatalogue },
        SensorsRepository,
        IncidentsRepository,
        StateChangeWriter,
        SensorRuntimeService,
        SchedulerService,
      ],
      exports: [
        ProbeCatalogue,
        SensorsRepository,
        IncidentsRepository,
        SensorRuntimeService,
        SchedulerService,
        MaintenanceModule,
        HistoryModule,
      ],
    };
  }
}
