import { Controller, Delete, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { InstallationSecretsService } from '../settings/installation-secrets.service';
import { RequireAccess } from '../core/http/access.decorator';
import { ApiKeyDto } from './dto/auth.dto';
import { OkDto } from '../core/http/ok.dto';

@ApiTags('settings')
@Controller('api/api-key')
export class ApiKeyController {
  constructor(private readonly secrets: InstallationSecretsService) {}

  /** Generates a new API key; the previous key stops working at once. */
  @Post()
  @RequireAccess('admin')
  @HttpCode(200)
  @ApiOkResponse({ type: ApiKeyDto })
  async rotate(): Promise<ApiKeyDto> {
    return { api_key: await this.secrets.rotateApiKey() };
  }

  /** Removes the API key. */
  @Delete()
  @RequireAccess('admin')
  @ApiOkResponse({ type: OkDto })
  async remove(): Promise<OkDto> {
    await this.secrets.removeApiKey();
    return { ok: true };
  }
}
