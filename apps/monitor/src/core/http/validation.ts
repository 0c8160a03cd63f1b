import { ArgumentMetadata, BadRequestException, ValidationPipe } from '@nestjs/common';
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
    return metadata.type === 'param' ? value : (super.transformPrimitive(value, metadata) as unknown);
  }
}

export const createValidationPipe = (): ValidationPipe =>
  new ApiValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: true,
    exceptionFactory: (errors) => new BadRequestException(describeValidationErrors(errors)),
  });
