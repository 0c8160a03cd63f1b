import { ApiProperty } from '@nestjs/swagger';
import {
  ANNOUNCEMENT_SEVERITIES,
  type AnnouncementSeverity,
  type PublicDay,
  type PublicIncident,
  type PublicPageStatus,
  type PublicSensor,
  type PublicSensorStatus,
  type PublicStatusPage,
} from '@monitor/contracts';

/* The public answer's shape for the OpenAPI document (the controller sends cached text). */

const PAGE_STATUSES: PublicPageStatus[] = ['operational', 'degraded', 'outage', 'maintenance'];
const SENSOR_STATUSES: PublicSensorStatus[] = ['up', 'down', 'degraded', 'maintenance', 'paused', 'unknown'];

export class PublicDayDto implements PublicDay {
  /** YYYY-MM-DD (UTC). */
  date!: string;
  /** Percent up that day, null without data. */
  @ApiProperty({ type: Number, nullable: true })
  uptime!: number | null;
  /** `down` with an outage that day, `degraded` with failed probes only. */
  @ApiProperty({ enum: ['up', 'degraded', 'down'], nullable: true })
  worst!: 'up' | 'degraded' | 'down' | null;
}

export class PublicUptimeDto {
  @ApiProperty({ type: Number, nullable: true })
  d1!: number | null;
  @ApiProperty({ type: Number, nullable: true })
  d30!: number | null;
  @ApiProperty({ type: Number, nullable: true })
  d90!: number | null;
}

export class PublicSensorDto implements PublicSensor {
  /** The sensor's display name. */
  name!: string;
  @ApiProperty({ enum: SENSOR_STATUSES })
  status!: PublicSensorStatus;
  /** Percent up over 1, 30 and 90 days; all null when the page hides uptime. */
  @ApiProperty({ type: PublicUptimeDto })
  uptime!: PublicUptimeDto;
  /** One entry per day of the page's history_days, oldest first, ending today. */
  @ApiProperty({ type: [PublicDayDto] })
  days!: PublicDayDto[];
}

export class PublicSectionDto {
  title!: string;
  @ApiProperty({ type: [PublicSensorDto] })
  sensors!: PublicSensorDto[];
}

export class PublicAnnouncementDto {
  title!: string;
  body!: string;
  @ApiProperty({ enum: ANNOUNCEMENT_SEVERITIES })
  severity!: AnnouncementSeverity;
  created_at!: string;
}

export class PublicIncidentDto implements PublicIncident {
  /** The sensor's name. */
  sensor!: string;
  started_at!: string;
  /** Absent while the incident is open. */
  resolved_at?: string;
}

export class PublicStatusPageDto implements PublicStatusPage {
  slug!: string;
  title!: string;
  description!: string;
  footer!: string;
  @ApiProperty({ enum: PAGE_STATUSES })
  status!: PublicPageStatus;
  updated_at!: string;
  @ApiProperty({ type: [PublicAnnouncementDto] })
  announcements!: PublicAnnouncementDto[];
  @ApiProperty({ type: [PublicSectionDto] })
  sections!: PublicSectionDto[];
  /** Open ones and those resolved within the page's history, newest first, at most 50. */
  @ApiProperty({ type: [PublicIncidentDto] })
  incidents!: PublicIncidentDto[];
}
