import {
  ANNOUNCEMENT_SEVERITIES,
  STATUS_PAGE_HISTORY_DAYS,
  STATUS_PAGE_LANGUAGES,
  STATUS_PAGE_LIMITS,
  STATUS_PAGE_SLUG_PATTERN,
  type AnnouncementInput,
  type AnnouncementSeverity,
  type StatusPage,
  type StatusPageAnnouncement,
  type StatusPageHistoryDays,
  type StatusPageInput,
  type StatusPageLanguage,
  type StatusPageSection,
  type StatusPagesResponse,
} from '@monitor/contracts';
import { ApiProperty } from '@nestjs/swagger';
import { Transform, Type, type TransformFnParams } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';

const trim = ({ value }: TransformFnParams): unknown => (typeof value === 'string' ? value.trim() : value);
const present = (_object: object, value: unknown): boolean => value !== undefined;
const SLUG_RULE = { message: "slug must be 1 to 64 lowercase letters, digits and '-'" };
const LANGUAGE_CHOICES = ['', ...STATUS_PAGE_LANGUAGES];
const text = (field: string, max: number) => ({
  string: { message: `${field} must be a string` },
  long: { message: `${field} must be at most ${max} characters` },
});
const titleText = text('title', STATUS_PAGE_LIMITS.title);

export class StatusPageSectionDto implements StatusPageSection {
  /** At most 200 characters ('' allowed: a section without a heading). */
  @Transform(trim)
  @IsDefined({ message: 'title is required' })
  @MaxLength(STATUS_PAGE_LIMITS.sectionTitle, text('title', STATUS_PAGE_LIMITS.sectionTitle).long)
  @IsString(text('title', STATUS_PAGE_LIMITS.sectionTitle).string)
  title!: string;

  /** Sensor ids in display order, each once, at most 500. */
  @IsDefined({ message: 'sensors is required' })
  @ArrayMaxSize(STATUS_PAGE_LIMITS.sensorsPerSection, {
    message: `sensors must list at most ${STATUS_PAGE_LIMITS.sensorsPerSection} sensors`,
  })
  @IsInt({ each: true, message: 'sensors must be an array of sensor ids' })
  @IsArray({ message: 'sensors must be an array of sensor ids' })
  sensors!: number[];
}

/**
 * Fields shared by create and update (all optional here; POST requires slug and title).
 * class-validator runs a property's decorators bottom-up: the basic type check sits lowest.
 */
abstract class StatusPageFieldsDto implements StatusPageInput {
  /** Plain text, at most 2000 characters. */
  @ValidateIf(present)
  @MaxLength(STATUS_PAGE_LIMITS.text, text('description', STATUS_PAGE_LIMITS.text).long)
  @IsString(text('description', STATUS_PAGE_LIMITS.text).string)
  description?: string;

  /** Ordered sections, at most 50; on PUT they replace all sections. */
  @ValidateIf(present)
  @ValidateNested({ each: true })
  @Type(() => StatusPageSectionDto)
  @IsObject({ each: true, message: 'sections must be an array of {title, sensors}' })
  @ArrayMaxSize(STATUS_PAGE_LIMITS.sections, {
    message: `sections must have at most ${STATUS_PAGE_LIMITS.sections} entries`,
  })
  @IsArray({ message: 'sections must be an array of {title, sensors}' })
  @ApiProperty({ type: [StatusPageSectionDto] })
  sections?: StatusPageSectionDto[];

  /** Whether the page is public (default false). */
  @ValidateIf(present)
  @IsBoolean({ message: 'published must be true or false' })
  published?: boolean;

  /** Whether the page shows uptime figures (default true). */
  @ValidateIf(present)
  @IsBoolean({ message: 'show_uptime must be true or false' })
  show_uptime?: boolean;

  /** 30, 60 or 90 (default). */
  @ValidateIf(present)
  @IsIn(STATUS_PAGE_HISTORY_DAYS, { message: 'history_days must be 30, 60 or 90' })
  @ApiProperty({ enum: STATUS_PAGE_HISTORY_DAYS })
  history_days?: StatusPageHistoryDays;

  /** Plain text, at most 2000 characters. */
  @ValidateIf(present)
  @MaxLength(STATUS_PAGE_LIMITS.text, text('footer', STATUS_PAGE_LIMITS.text).long)
  @IsString(text('footer', STATUS_PAGE_LIMITS.text).string)
  footer?: string;

  /** `en`, `de`, or '' (default) for the visitor's Accept-Language. */
  @ValidateIf(present)
  @IsIn(LANGUAGE_CHOICES, { message: `language must be '', ${STATUS_PAGE_LANGUAGES.join(' or ')}` })
  @ApiProperty({ enum: LANGUAGE_CHOICES })
  language?: StatusPageLanguage | '';

  // Read-only fields: accepted (a GET response can be sent back) and ignored.
  @Allow() id?: unknown;
  @Allow() announcements?: unknown;
  @Allow() managed_by?: unknown;
  @Allow() created_at?: unknown;
  @Allow() updated_at?: unknown;
}

/** POST /api/status-pages */
export class CreateStatusPageDto extends StatusPageFieldsDto {
  /** Unique; lowercase letters, digits and '-', 1 to 64. */
  @ApiProperty({ pattern: STATUS_PAGE_SLUG_PATTERN.source })
  @IsDefined({ message: 'slug is required' })
  @Matches(STATUS_PAGE_SLUG_PATTERN, SLUG_RULE)
  @IsString(SLUG_RULE)
  slug!: string;

  /** 1 to 200 characters after trimming. */
  @Transform(trim)
  @IsDefined({ message: 'title is required' })
  @MaxLength(STATUS_PAGE_LIMITS.title, titleText.long)
  @MinLength(1, { message: 'title must not be empty' })
  @IsString(titleText.string)
  title!: string;
}

/** PUT /api/status-pages/{id}: absent fields keep their value; sections replace all sections. */
export class UpdateStatusPageDto extends StatusPageFieldsDto {
  @ApiProperty({ pattern: STATUS_PAGE_SLUG_PATTERN.source, required: false })
  @ValidateIf(present)
  @Matches(STATUS_PAGE_SLUG_PATTERN, SLUG_RULE)
  @IsString(SLUG_RULE)
  slug?: string;

  @Transform(trim)
  @ValidateIf(present)
  @MaxLength(STATUS_PAGE_LIMITS.title, titleText.long)
  @MinLength(1, { message: 'title must not be empty' })
  @IsString(titleText.string)
  title?: string;
}

/** POST /api/status-pages/{id}/announcements */
export class AnnouncementInputDto implements AnnouncementInput {
  /** 1 to 200 characters after trimming. */
  @Transform(trim)
  @IsDefined({ message: 'title is required' })
  @MaxLength(STATUS_PAGE_LIMITS.announcementTitle, text('title', STATUS_PAGE_LIMITS.announcementTitle).long)
  @MinLength(1, { message: 'title must not be empty' })
  @IsString(text('title', STATUS_PAGE_LIMITS.announcementTitle).string)
  title!: string;

  /** Plain text, at most 5000 characters. */
  @IsDefined({ message: 'body is required' })
  @MaxLength(STATUS_PAGE_LIMITS.announcementBody, text('body', STATUS_PAGE_LIMITS.announcementBody).long)
  @IsString(text('body', STATUS_PAGE_LIMITS.announcementBody).string)
  body!: string;

  @IsDefined({ message: 'severity is required' })
  @IsIn(ANNOUNCEMENT_SEVERITIES, { message: `severity must be ${ANNOUNCEMENT_SEVERITIES.join(', ')}` })
  @ApiProperty({ enum: ANNOUNCEMENT_SEVERITIES })
  severity!: AnnouncementSeverity;
}

export class StatusPageAnnouncementDto implements StatusPageAnnouncement {
  id!: number;
  title!: string;
  body!: string;
  @ApiProperty({ enum: ANNOUNCEMENT_SEVERITIES })
  severity!: AnnouncementSeverity;
  created_at!: string;
}

export class StatusPageDto implements StatusPage {
  id!: number;
  slug!: string;
  title!: string;
  description!: string;
  @ApiProperty({ type: [StatusPageSectionDto] })
  sections!: StatusPageSectionDto[];
  published!: boolean;
  show_uptime!: boolean;
  @ApiProperty({ enum: STATUS_PAGE_HISTORY_DAYS })
  history_days!: StatusPageHistoryDays;
  footer!: string;
  @ApiProperty({ enum: LANGUAGE_CHOICES })
  language!: StatusPageLanguage | '';
  /** Newest first. */
  @ApiProperty({ type: [StatusPageAnnouncementDto] })
  announcements!: StatusPageAnnouncementDto[];
  /** `config` when declared in the configuration file (cannot be changed or deleted), else null. */
  @ApiProperty({ type: String, nullable: true })
  managed_by!: string | null;
  created_at!: string;
  updated_at!: string;
}

export class StatusPagesResponseDto implements StatusPagesResponse {
  /** Sorted by slug. */
  @ApiProperty({ type: [StatusPageDto] })
  status_pages!: StatusPageDto[];
}
