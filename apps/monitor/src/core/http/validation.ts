import { ArgumentMetadata, BadRequestException, ValidationPipe } from '@nestjs/common';
import { NotFoundError } from '@monitor/domain';
import { ValidationError } from 'class-validator';

/** First problem of a failed DTO validation, as one sentence naming the field. */
export function describeValidationErrors(errors: ValidationError[], prefix = ''): string {
  for (const error of errors) {
    const field = prefix ? `${prefix}.${error.property}` : error.property;
    const constraints = error.constraints ?? {};
    if (constraints.whitelistValidation) return `unknown field "${field}"`;
    const first = Object.values(constraints)[0];
    if (first) return prefix ? first.replace(error.property, field) : first;
    if (error.children?.length) return describeValidationErrors(error.children, field);
  }
  return 'invalid request body';
}

/**
 * Route parameters reach their own pipe (ParseIntPipe) as written. The stock pipe turns a
 * `number` parameter into `+value` first, which reads `0x10` as 16, `1.6e1` as 16 and ` 16` as
 * 16: a path would name a resource other than the one spelled.
 */
class ApiValidationPipe extends ValidationPipe {
  protected override transformPrimitive(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type !== 'param') return super.transformPrimitive(value, metadata) as unknown;
    // Ids are 32-bit integers: SQLite finds no row beyond that, PostgreSQL would fail the query.
    if (metadata.metatype === Number && typeof value === 'string' && /^-?\d+$/.test(value)) {
      const id = Number(value);
      if (id > MAX_ID || id < -MAX_ID - 1)
        throw new NotFoundError(`no ${metadata.data ?? 'id'} ${value} exists`);
    }
    return value;
  }
}

const MAX_ID = 2_147_483_647;

export const createValidationPipe = (): ValidationPipe =>
  new ApiValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: true,
    exceptionFactory: (errors) => new BadRequestException(describeValidationErrors(errors)),
  });
