import { Controller, Delete, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { RequireAccess } from '../core/http/access.decorator';
import { OkDto } from '../core/http/ok.dto';
import { InstallationSecretsService } from '../settings/installation-secrets.service';
import { MetricsTokenDto } from '../settings/dto/metrics-token.dto';

@ApiTags('settings')
@Controller('api/metrics-token')
export class MetricsTokenController {
  constructor(private readonly secrets: InstallationSecretsService) {}

  /**
   * Creates the read-only metrics token, or replaces it (the previous one stops working at once).
   * The answer is the only time the token is shown.
   */
  @Post()
  @RequireAccess('admin')
  @HttpCode(200)
  @ApiOkResponse({ type: MetricsTokenDto })
  async rotate(): Promise<MetricsTokenDto> {
    const { token, createdAt } = await this.secrets.rotateMetricsToken();
    return { metrics_token: token, created_at: new Date(createdAt).toISOString() };
  }

  /** Removes the metrics token; GET /metrics then needs the API key or a session. */
  @Delete()
  @RequireAccess('admin')
  @ApiOkResponse({ type: OkDto })
  async remove(): Promise<OkDto> {
    await this.secrets.removeMetricsToken();
    return { ok: true };
  }
}
