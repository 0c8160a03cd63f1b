import { containedLength, containsPattern } from './like-pattern';

describe('containedLength', () => {
  it.each([
    ['ab', 2],
    ['abc', 3],
    ['%_', 2],
    ['a\\b', 3],
    ['😀x', 2],
  ])('counts the characters of %j inside its pattern: %i', (text, length) => {
    expect(containedLength(containsPattern(text))).toBe(length);
  });
});
