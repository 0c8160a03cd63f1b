import { CHANNEL_FIELDS } from '@monitor/domain';
import { Allow, IsOptional } from 'class-validator';
import { FollowsRule } from '../../core/http/follows-rule';

/**
 * Channel fields for POST (name, type and config required) and PUT (absent fields keep their value).
 * Types, lengths and messages come from the channel definition in libs/domain.
 */
export class ChannelInputDto {
  @IsOptional() @FollowsRule(CHANNEL_FIELDS.name) name?: string;
  @IsOptional() @FollowsRule(CHANNEL_FIELDS.type) type?: string;
  /** Type-specific fields (see GET /api/channel-types); secret ones read "__stored__" and sending that back keeps them. */
  @IsOptional() @FollowsRule(CHANNEL_FIELDS.config) config?: Record<string, unknown>;
  @IsOptional() @FollowsRule(CHANNEL_FIELDS.enabled) enabled?: boolean;
  /** Go text/template for the title; empty uses the built-in wording. */
  @IsOptional() @FollowsRule(CHANNEL_FIELDS.title_template) title_template?: string;
  /** Go text/template for the message body; empty uses the built-in wording. */
  @IsOptional() @FollowsRule(CHANNEL_FIELDS.body_template) body_template?: string;

  // Read-only fields: accepted (a GET response can be sent back) and ignored.
  @Allow() id?: unknown;
  @Allow() last_error?: unknown;
  @Allow() last_error_at?: unknown;
  @Allow() managed_by?: unknown;
}

export class ChannelDto {
  id!: number;
  name!: string;
  type!: string;
  config!: Record<string, unknown>;
  enabled!: boolean;
  title_template!: string;
  body_template!: string;
  /** The last delivery's error; empty when it succeeded. */
  last_error!: string;
  last_error_at!: string | null;
  managed_by!: string | null;
}

export class ChannelFieldDto {
  name!: string;
  label!: string;
  description!: string;
  required!: boolean;
  secret!: boolean;
  kind!: 'string' | 'boolean' | 'enum';
  options?: string[];
}

export class ChannelTypeDto {
  type!: string;
  label!: string;
  fields!: ChannelFieldDto[];
  /** Numbered setup steps for someone doing it the first time. */
  recipe!: string[];
}
