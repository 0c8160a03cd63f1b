import { BadRequestException, ValidationPipe } from '@nestjs/common';
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

export const createValidationPipe = (): ValidationPipe =>
  new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: true,
    exceptionFactory: (errors) => new BadRequestException(describeValidationErrors(errors)),
  });
