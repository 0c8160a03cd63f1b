import type { LoginRequest, SetupRequest, TotpLoginRequest } from '@monitor/contracts';
import { IsIn, IsString, MaxLength } from 'class-validator';

export class LoginDto implements LoginRequest {
  @IsString() @MaxLength(256) username!: string;
  @IsString() @MaxLength(1024) password!: string;
}

export class TotpLoginDto implements TotpLoginRequest {
  /** The challenge POST /api/login answered with. */
  @IsString() @MaxLength(256) challenge!: string;
  /** A 6-digit code from the authenticator, or a recovery code. */
  @IsString() @MaxLength(64) code!: string;
}

export class SetupDto implements SetupRequest {
  @IsString() @MaxLength(256) username!: string;
  @IsString() @MaxLength(1024) password!: string;
  /** `simple` or `advanced`: how much the dashboard shows at first. */
  @IsIn(['simple', 'advanced']) mode!: 'simple' | 'advanced';
}

export class LoginResponseDto {
  /** Present when signed in. */
  ok?: true;
  /** Present when the account needs its second factor: send the challenge with a code to /api/login/totp. */
  totp_required?: true;
  challenge?: string;
}

export class ApiKeyDto {
  /** The new key, shown in clear. */
  api_key!: string;
}
