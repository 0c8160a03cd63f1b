import { Module } from '@nestjs/common';
import { ExamplesController } from './examples.controller';
import { ExamplesService } from './examples.service';

/** Sample data: load, count and remove. */
@Module({ controllers: [ExamplesController], providers: [ExamplesService], exports: [ExamplesService] })
export class ExamplesModule {}
