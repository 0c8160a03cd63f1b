import { ClusterModule } from '../cluster/cluster.module';
import { Module } from '@nestjs/common';
import { createNotifierCatalogue, NotifierCatalogue } from '@monitor/notifiers';
import { AlertOutboxModule } from './alert-outbox.module';
import { ChannelsController } from './channels.controller';
import { ChannelsRepository } from './channels.repository';
import { ChannelsService } from './channels.service';
import { DeliveryService } from './delivery.service';

@Module({
  imports: [AlertOutboxModule, ClusterModule],
  controllers: [ChannelsController],
  providers: [
    { provide: NotifierCatalogue, useFactory: createNotifierCatalogue },
    ChannelsRepository,
    ChannelsService,
    DeliveryService,
  ],
  exports: [ChannelsRepository, ChannelsService, DeliveryService],
})
export class ChannelsModule {}
