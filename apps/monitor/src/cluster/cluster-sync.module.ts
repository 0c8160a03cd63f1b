import { Module } from '@nestjs/common';
import { MaintenanceModule } from '../maintenance/maintenance.module';
import { SchedulerModule } from '../scheduler/scheduler.module';
import { SitesModule } from '../sites/sites.module';
import { ClusterEventsBridge } from './cluster-events.bridge';
import { ClusterController } from './cluster.controller';
import { ClusterService } from './cluster.service';
import { ClusterModule } from './cluster.module';
import { RemoteChanges } from './remote-changes.service';

/** Events and edits crossing instances (PostgreSQL LISTEN/NOTIFY), and the cluster's API. */
@Module({
  imports: [ClusterModule, SchedulerModule, MaintenanceModule, SitesModule],
  controllers: [ClusterController],
  providers: [ClusterEventsBridge, RemoteChanges, ClusterService],
  exports: [ClusterService],
})
export class ClusterSyncModule {}
