import { Module } from '@nestjs/common';
import { HistoryModule } from '../history/history.module';
import { SchedulerModule } from '../scheduler/scheduler.module';
import { ExamplesController } from './examples.controller';
import { ExamplesService } from './examples.service';

/** Sample data: load, count and remove. */
@Module({
  imports: [SchedulerModule, HistoryModule],
  controllers: [ExamplesController],
  providers: [ExamplesService],
  exports: [ExamplesService],
})
export class ExamplesModule {}
