import { Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import { ApiConflictResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { RequireAccess } from '../core/http/access.decorator';
import { ExampleCountsDto } from './dto/example-counts.dto';
import { ExamplesService } from './examples.service';

@ApiTags('examples')
@Controller('api/examples')
export class ExamplesController {
  constructor(private readonly examples: ExamplesService) {}

  /** How much sample data is loaded. */
  @Get()
  @RequireAccess('viewer')
  @ApiOkResponse({ type: ExampleCountsDto })
  counts(): Promise<ExampleCountsDto> {
    return this.examples.counts();
  }

  /** Loads the sample set with a week of invented history; names already present are left alone. 409 on a file-configured installation. */
  @Post()
  @RequireAccess('admin')
  @HttpCode(200)
  @ApiOkResponse({ type: ExampleCountsDto })
  @ApiConflictResponse({ description: 'the installation is configured from a file' })
  load(): Promise<ExampleCountsDto> {
    return this.examples.load();
  }

  /** Removes sample sensors with their history, and sample sites left empty; answers what went. */
  @Delete()
  @RequireAccess('admin')
  @ApiOkResponse({ type: ExampleCountsDto })
  remove(): Promise<ExampleCountsDto> {
    return this.examples.remove();
  }
}
