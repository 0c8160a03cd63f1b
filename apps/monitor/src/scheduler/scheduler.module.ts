import { Module } from '@nestjs/common';
import { createProbeCatalogue, ProbeCatalogue } from '@monitor/probes';
import { AlertOutboxModule } from '../channels/alert-outbox.module';
import { ClusterModule } from '../cluster/cluster.module';
import { HistoryModule } from '../history/history.module';
import { IncidentsStorageModule } from '../incidents/incidents-storage.module';
import { MaintenanceModule } from '../maintenance/maintenance.module';
import { SensorScheduling } from '../sensors/sensor-scheduling';
import { SensorsStorageModule } from '../sensors/sensors-storage.module';
import { SchedulerService } from './scheduler.service';
import { SensorRuntimeService } from './sensor-runtime.service';
import { SchedulerSensorScheduling } from './sensor-scheduling.adapter';
import { StateChangeWriter } from './state-change-writer';

/** The probes, the live sensor state and the loops that drive them. */
@Module({
  imports: [
    ClusterModule,
    HistoryModule,
    MaintenanceModule,
    AlertOutboxModule,
    SensorsStorageModule,
    IncidentsStorageModule,
  ],
  providers: [
    { provide: ProbeCatalogue, useFactory: createProbeCatalogue },
    StateChangeWriter,
    SensorRuntimeService,
    SchedulerService,
    { provide: SensorScheduling, useClass: SchedulerSensorScheduling },
  ],
  exports: [ProbeCatalogue, SensorRuntimeService, SchedulerService, SensorScheduling],
})
export class SchedulerModule {}
