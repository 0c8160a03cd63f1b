import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { RequireAccess } from '../core/http/access.decorator';
import { HealthStatusDto, VersionInfoDto } from './dto/health-status.dto';
import { DatabaseUnavailableError, HealthService } from './health.service';

@ApiTags('system')
@Controller()
@RequireAccess('public')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  /** Liveness and readiness for container health checks; no authentication, nothing sensitive. */
  @Get('healthz')
  @ApiOkResponse({ type: HealthStatusDto })
  @ApiServiceUnavailableResponse({
    description:
      'the database does not answer, or writes to it fail (disk full, I/O errors); `error` says since when and why',
  })
  async healthz(): Promise<HealthStatusDto> {
    try {
      return await this.health.health();
    } catch (error) {
      if (error instanceof DatabaseUnavailableError)
        throw new ServiceUnavailableException('database unavailable');
      throw error;
    }
  }

  /** The running build: version, build number, commit, build date and channel. */
  @Get('api/version')
  @ApiOkResponse({ type: VersionInfoDto })
  version(): VersionInfoDto {
    return this.health.version();
  }
}
