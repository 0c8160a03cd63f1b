import { Module } from '@nestjs/common';
import { ResultWriter } from './result-writer.service';

@Module({ providers: [ResultWriter], exports: [ResultWriter] })
export class HistoryModule {}
