import { CHANNEL_DEFAULTS, CHANNEL_TYPES, channelFieldError } from './channel.definition';

describe('channel definition', () => {
  it('accepts every type id and names them all when refusing another', () => {
    for (const type of CHANNEL_TYPES) expect(channelFieldError('type', type)).toBeNull();
    for (const type of ['sms', 'Webhook', '', null])
      expect(channelFieldError('type', type)).toBe(`type must be one of ${CHANNEL_TYPES.join(', ')}`);
  });

  it.each([
    ['name', 200],
    ['title_template', 4000],
    ['body_template', 16000],
  ] as const)('%s: at most %p characters', (field, max) => {
    expect(channelFieldError(field, 'x'.repeat(max))).toBeNull();
    expect(channelFieldError(field, 'x'.repeat(max + 1))).toBe(`${field} must be at most ${max} characters`);
    expect(channelFieldError(field, 5)).toBe(`${field} must be a string`);
  });

  it('a name must not be blank; templates may be empty', () => {
    expect(channelFieldError('name', ' ')).toBe('name must not be empty');
    expect(channelFieldError('title_template', '')).toBeNull();
    expect(channelFieldError('body_template', '')).toBeNull();
  });

  it('config is an object and enabled a boolean', () => {
    expect(channelFieldError('config', { url: 'http://127.0.0.1/' })).toBeNull();
    expect(channelFieldError('config', ['a'])).toBe('config must be an object');
    expect(channelFieldError('enabled', false)).toBeNull();
    expect(channelFieldError('enabled', 'true')).toBe('enabled must be true or false');
  });

  it('has its defaults', () => {
    expect(CHANNEL_DEFAULTS).toEqual({ config: {}, enabled: true, title_template: '', body_template: '' });
  });
});
