import type { CreateUserRequest, Role, UpdateUserRequest, UserAccount, UserList } from '@monitor/contracts';
import { IsBoolean, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';

const ROLE_VALUES = ['admin', 'operator', 'viewer'];

export class CreateUserDto implements CreateUserRequest {
  /** 1 to 64 letters, digits or . _ @ -; unique regardless of case. */
  @IsString() @MaxLength(256) username!: string;
  /** At least 8 characters, at most 72 bytes. */
  @IsString() @MaxLength(1024) password!: string;
  @IsIn(ROLE_VALUES) role!: Role;
}

export class UpdateUserDto implements UpdateUserRequest {
  @IsOptional() @IsIn(ROLE_VALUES) role?: Role;
  @IsOptional() @IsBoolean() disabled?: boolean;
}

export class ResetPasswordDto {
  @IsString() @MaxLength(1024) new_password!: string;
}

export class ChangePasswordDto {
  @IsString() @MaxLength(1024) current_password!: string;
  @IsString() @MaxLength(1024) new_password!: string;
}

export class PasswordConfirmationDto {
  @IsString() @MaxLength(1024) password!: string;
}

export class TotpCodeDto {
  /** The 6-digit code the authenticator shows. */
  @IsString() @MaxLength(16) code!: string;
}

export class UserAccountDto implements UserAccount {
  id!: number;
  username!: string;
  role!: Role;
  disabled!: boolean;
  totp_enabled!: boolean;
  recovery_codes_left!: number;
  /** ISO 8601; null until the first sign-in. */
  last_login_at!: string | null;
  created_at!: string;
}

export class UserListDto implements UserList {
  users!: UserAccountDto[];
  roles!: Role[];
}

export class TotpStartDto {
  /** Base32 secret for typing into an authenticator by hand. */
  secret!: string;
  /** otpauth:// URI; the same as a QR code at GET /api/me/totp/qr. */
  uri!: string;
}

export class RecoveryCodesDto {
  /** Eight one-time codes, shown only this once. */
  recovery_codes!: string[];
}
