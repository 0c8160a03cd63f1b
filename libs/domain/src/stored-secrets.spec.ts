import { maskSecrets, restoreSecrets } from './stored-secrets';

describe('stored secrets', () => {
  it('masks non-empty secret fields only', () => {
    expect(maskSecrets({ url: 'u', token: 't', empty: '' }, ['token', 'empty', 'absent'])).toEqual({
      url: 'u',
      token: '__stored__',
      empty: '',
    });
  });

  it('puts the stored value back for the marker and keeps new values', () => {
    const incoming = { token: '__stored__', other: 'new' };
    restoreSecrets(incoming, { token: 'old', other: 'old' }, ['token', 'other'], 'config');
    expect(incoming).toEqual({ token: 'old', other: 'new' });
  });

  it('refuses the marker when nothing is stored', () => {
    expect(() => restoreSecrets({ token: '__stored__' }, null, ['token'], 'options')).toThrow(
      'options.token: there is no stored value to keep',
    );
  });
});

describe('stored secrets held in an object (http headers)', () => {
  it('masks each non-empty value and keeps the keys', () => {
    expect(maskSecrets({ headers: { Authorization: 'Bearer x', 'X-Empty': '' } }, ['headers'])).toEqual({
      headers: { Authorization: '__stored__', 'X-Empty': '' },
    });
  });

  it('keeps the stored value per key (any case) and takes new ones', () => {
    const incoming: Record<string, unknown> = { headers: { authorization: '__stored__', 'X-New': 'n' } };
    restoreSecrets(
      incoming,
      { headers: { Authorization: 'Bearer x', 'X-Gone': 'g' } },
      ['headers'],
      'options',
    );
    expect(incoming).toEqual({ headers: { authorization: 'Bearer x', 'X-New': 'n' } });
  });

  it('refuses the marker for a key that holds nothing', () => {
    expect(() =>
      restoreSecrets(
        { headers: { 'X-Api-Key': '__stored__' } },
        { headers: { Other: 'o' } },
        ['headers'],
        'options',
      ),
    ).toThrow('options.headers.X-Api-Key: there is no stored value to keep');
  });
});
