import { Module } from '@nestjs/common';
import { ChannelsModule } from '../channels/channels.module';
import { DeclaredConfigSync } from './declared-config.service';

/** Sites, channels, sensors and maintenance windows declared in the configuration file. */
@Module({ imports: [ChannelsModule], providers: [DeclaredConfigSync] })
export class DeclaredModule {}
