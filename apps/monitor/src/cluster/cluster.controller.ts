import { Controller, Delete, Get, HttpCode, Param } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { RequireAccess } from '../core/http/access.decorator';
import { ClusterService } from './cluster.service';
import { ClusterViewDto } from './dto/cluster.dto';

@ApiTags('cluster')
@Controller('api/cluster')
@RequireAccess('admin')
export class ClusterController {
  constructor(private readonly cluster: ClusterService) {}

  /** The instances sharing the database, alive or not, and how many sensors each probes. */
  @Get()
  @ApiOkResponse({ type: ClusterViewDto })
  view(): Promise<ClusterViewDto> {
    return this.cluster.view();
  }

  /** Removes a stopped or dead instance from the list (dismisses its notice); 409 while it is alive. */
  @Delete('instances/:name')
  @HttpCode(204)
  @ApiNoContentResponse()
  async forget(@Param('name') name: string): Promise<void> {
    await this.cluster.forget(name);
  }
}
