import { Module } from '@nestjs/common';
import { HistoryModule } from '../history/history.module';
import { SchedulerModule } from '../scheduler/scheduler.module';
import { InstallationSecretsModule } from '../settings/installation-secrets.module';
import { SitesModule } from '../sites/sites.module';
import { MetricsTokenController } from './metrics-token.controller';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';

/** GET /metrics for Prometheus, and the read-only token it scrapes with. */
@Module({
  imports: [SchedulerModule, HistoryModule, SitesModule, InstallationSecretsModule],
  controllers: [MetricsController, MetricsTokenController],
  providers: [MetricsService],
  exports: [MetricsService],
})
export class MetricsModule {}
