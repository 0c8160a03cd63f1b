import { CHANNEL_TYPES } from '@monitor/domain';
import { createNotifierCatalogue } from './catalogue';
import * as api from './index';

describe('NotifierCatalogue', () => {
  const catalogue = createNotifierCatalogue();

  it('registers the seven channel types', () => {
    expect(catalogue.types()).toEqual([
      'bot_messenger',
      'chat_webhook_a',
      'federated_chat',
      'push_topic',
      'chat_webhook_b',
      'webhook',
      'email',
    ]);
    expect(catalogue.get('webhook')?.type).toBe('webhook');
    expect(catalogue.get('nope')).toBeUndefined();
  });

  it('describes every type in the channel-types shape', () => {
    for (const entry of catalogue.definitions()) {
      expect(Object.keys(entry)).toEqual(['type', 'label', 'fields', 'recipe']);
      expect(entry.label).not.toBe('');
      expect(entry.recipe.length).toBeGreaterThanOrEqual(3);
      for (const field of entry.fields) {
        expect(field).toMatchObject({
          name: expect.any(String),
          label: expect.any(String),
          description: expect.any(String),
          required: expect.any(Boolean),
          secret: expect.any(Boolean),
        });
        expect(['string', 'boolean', 'enum']).toContain(field.kind);
        if (field.kind === 'enum') expect(field.options?.length).toBeGreaterThan(0);
        else expect(field.options).toBeUndefined();
      }
    }
  });

  it('flags the secrets the spec names', () => {
    const secrets = Object.fromEntries(
      catalogue
        .definitions()
        .map((entry) => [entry.type, entry.fields.filter((f) => f.secret).map((f) => f.name)]),
    );
    expect(secrets).toEqual({
      bot_messenger: ['bot_token'],
      chat_webhook_a: ['webhook_url'],
      federated_chat: ['access_token'],
      push_topic: ['token'],
      chat_webhook_b: ['webhook_url'],
      webhook: ['hmac_secret'],
      email: ['password'],
    });
  });

  it('exports the public API', () => {
    expect(typeof api.createNotifierCatalogue).toBe('function');
    expect(typeof api.deliverWithRetries).toBe('function');
    expect(typeof api.DeliveryError).toBe('function');
    expect(api.scrubSecrets('a TOKEN b', [{ value: 'TOKEN', mask: '<t>' }])).toBe('a <t> b');
  });
});

describe('the catalogue and the channel definition', () => {
  it('registers exactly the definition type ids, in its order', () => {
    expect(createNotifierCatalogue().types()).toEqual([...CHANNEL_TYPES]);
  });
});
