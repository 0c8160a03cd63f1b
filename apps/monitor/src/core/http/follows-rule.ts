import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import type { FieldRule, IntegerRule, TextRule } from '@monitor/domain';
import { ValidateBy } from 'class-validator';

/** What the OpenAPI document shows of a rule: its bounds, length or choices, read off the rule itself. */
function documented(rule: FieldRule): Record<string, unknown> | null {
  switch (rule.kind) {
    case 'integer': {
      // No `default`: generated clients would read a field with a default as required in a body.
      const { min, max } = rule as IntegerRule;
      return { minimum: min, maximum: max };
    }
    case 'text':
      return { maxLength: (rule as TextRule).maxLength };
    case 'choice':
      return { enum: [...(rule as FieldRule & { choices: readonly string[] }).choices] };
    case 'strings':
      return {
        type: 'array',
        items: {
          type: 'string',
          minLength: 1,
          maxLength: (rule as FieldRule & { maxLength: number }).maxLength,
        },
      };
    case 'boolean':
    case 'object':
    case 'list':
      return null;
  }
}

/**
 * Checks a DTO field with a rule of libs/domain (the definition the configuration file and the
 * backup reader use too) and answers its sentence, "<field> <problem>". Pair with @IsOptional.
 */
export function FollowsRule(rule: FieldRule): PropertyDecorator {
  const validate = ValidateBy({
    name: 'followsRule',
    validator: {
      validate: (value: unknown) => rule.check(value) === null,
      defaultMessage: (args) => `${args?.property ?? 'value'} ${rule.check(args?.value) ?? ''}`,
    },
  });
  const shown = documented(rule);
  return shown === null ? validate : applyDecorators(validate, ApiPropertyOptional(shown));
}
