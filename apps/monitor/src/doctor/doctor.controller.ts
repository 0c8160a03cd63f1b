import { Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { RequireAccess } from '../core/http/access.decorator';
import { DoctorService } from './doctor.service';
import { DoctorReportDto } from './dto/doctor.dto';

@ApiTags('doctor')
@Controller('api/doctor')
export class DoctorController {
  constructor(private readonly doctor: DoctorService) {}

  /** Runs the read-only self-check; 200 with ok false when it finds problems. Changes nothing, sends nothing. */
  @Post()
  @RequireAccess('operator')
  @HttpCode(200)
  @ApiOkResponse({ type: DoctorReportDto })
  run(): Promise<DoctorReportDto> {
    return this.doctor.run();
  }
}
