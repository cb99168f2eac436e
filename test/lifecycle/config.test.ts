import { describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../../src/config.js';

describe('lifecycle settings', () => {
  it('defaults: activation off, self-hosted captcha, a day for activation links and an hour for reset links', () => {
    const config = resolveConfig({}, {});
    expect(config).toMatchObject({ requireActivation: false, activationTtl: 86400, resetTtl: 3600, captcha: { provider: 'altcha' } });
  });

  it('reads flags before the environment', () => {
    const env = { IDP_REQUIRE_ACTIVATION: 'false', IDP_CAPTCHA_PROVIDER: 'hcaptcha', IDP_CAPTCHA_SECRET: 'env-secret', IDP_RESET_TTL: '600' };
    expect(resolveConfig({ requireActivation: true }, env)).toMatchObject({
      requireActivation: true,
      resetTtl: 600,
      captcha: { provider: 'hcaptcha', secret: 'env-secret', verifyUrl: 'https://api.hcaptcha.com/siteverify' },
    });
    expect(resolveConfig({}, { IDP_REQUIRE_ACTIVATION: 'true' }).requireActivation).toBe(true);
    expect(resolveConfig({ captchaProvider: 'recaptcha', captchaSecret: 's', captchaVerifyUrl: 'http://127.0.0.1:9/verify' }, {}).captcha).toMatchObject({
      verifyUrl: 'http://127.0.0.1:9/verify',
    });
  });

  it('refuses settings that cannot work', () => {
    expect(() => resolveConfig({ captchaProvider: 'turnstile' }, {})).toThrow(ConfigError);
    expect(() => resolveConfig({ captchaSecret: 'orphan' }, {})).toThrow(/--captcha-secret needs/);
    expect(() => resolveConfig({ captchaProvider: 'friendly' }, {})).toThrow(/--captcha-provider must be one of/);
    expect(() => resolveConfig({}, { IDP_REQUIRE_ACTIVATION: 'sometimes' })).toThrow(/true or false/);
    expect(() => resolveConfig({ resetTtl: '0' }, {})).toThrow(/--reset-ttl/);
  });
});
