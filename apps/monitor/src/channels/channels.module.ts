import { Module } from '@nestjs/common';
import { createNotifierCatalogue, NotifierCatalogue } from '@monitor/notifiers';
import { ChannelsController } from './channels.controller';
import { ChannelsService } from './channels.service';
import { DeliveryService } from './delivery.service';

@Module({
  controllers: [ChannelsController],
  providers: [
    { provide: NotifierCatalogue, useFactory: createNotifierCatalogue },
    ChannelsService,
    DeliveryService,
  ],
  exports: [ChannelsService, DeliveryService],
})
export class ChannelsModule {}
