import { Module } from '@nestjs/common';
import { SensorsStorageModule } from '../sensors/sensors-storage.module';
import { StatusPagesController } from './status-pages.controller';
import { StatusPagesRepository } from './status-pages.repository';
import { StatusPagesService } from './status-pages.service';

/** Status pages as a resource: storage, the admin API, announcements (the public side reads the service). */
@Module({
  imports: [SensorsStorageModule],
  controllers: [StatusPagesController],
  providers: [StatusPagesRepository, StatusPagesService],
  exports: [StatusPagesService],
})
export class StatusPagesModule {}
