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
