import { Module } from '@nestjs/common';
import { SensorsStorageModule } from '../sensors/sensors-storage.module';
import { MaintenanceController } from './maintenance.controller';
import { MaintenanceRepository } from './maintenance.repository';
import { MaintenanceService } from './maintenance.service';

@Module({
  imports: [SensorsStorageModule],
  controllers: [MaintenanceController],
  providers: [MaintenanceRepository, MaintenanceService],
  exports: [MaintenanceRepository, MaintenanceService],
})
export class MaintenanceModule {}
