import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compareText, containsWords, distanceMeters, splitWords } from '../../src/data/query/functions.js';
import { projectEntity } from '../../src/data/query/evaluate.js';

describe('containsWords', () => {
  it.each([
    ['The quick brown fox', 'quick', false, true],
    ['The quick brown fox', 'QUICK', false, true],
    ['The quick brown fox', 'qui', false, false],
    ['The quick brown fox', 'qui', true, true],
    ['The quick brown fox', 'brown fox', false, true],
    ['The quick brown fox', 'fox brown', false, false],
    ['The quick brown fox', 'brown f', true, true],
    ['The quick brown fox', 'quick fox', false, false],
    ['quick-witted, foxes!', 'witted', false, true],
    ['Über café', 'über', false, true],
    ['Über café', 'CAFÉ', false, true],
    ['anything', '', false, false],
    ['anything', '', true, true],
    ['', '', true, false],
    ['x1 y2', 'x1', false, true],
  ])('%j contains %j (prefix %s) = %s', (text, term, prefix, expected) => {
    expect(containsWords(text, term, prefix)).toBe(expected);
  });

  it('finds every word of a text, and every prefix of it', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.nat(), (text, pick) => {
        const words = splitWords(text);
        fc.pre(words.length > 0);
        const word = words[pick % words.length];
        const characters = [...word];
        expect(containsWords(text, word, false)).toBe(true);
        expect(containsWords(text, characters.slice(0, Math.max(1, characters.length - 1)).join(''), true)).toBe(true);
      }),
    );
  });
});

describe('distanceMeters', () => {
  it('measures great-circle distances', () => {
    // San Francisco to Los Angeles: about 559 km.
    expect(distanceMeters(37.7749, -122.4194, 34.0522, -118.2437) / 1000).toBeCloseTo(559.1, 0);
    expect(distanceMeters(10, 20, 10, 20)).toBe(0);
    // Half the circumference for antipodes, and no NaN from rounding.
    expect(distanceMeters(0, 0, 0, 180)).toBeCloseTo(Math.PI * 6_371_008.8, 3);
    expect(distanceMeters(90, 0, -90, 0)).toBeCloseTo(Math.PI * 6_371_008.8, 3);
  });

  it('is symmetric and never NaN for coordinates in range', () => {
    const lat = fc.double({ min: -90, max: 90, noNaN: true });
    const lon = fc.double({ min: -180, max: 180, noNaN: true });
    fc.assert(
      fc.property(lat, lon, lat, lon, (a, b, c, d) => {
        const distance = distanceMeters(a, b, c, d);
        expect(Number.isNaN(distance)).toBe(false);
        expect(distance).toBeCloseTo(distanceMeters(c, d, a, b), 6);
      }),
    );
  });
});

describe('compareText', () => {
  it('orders by code point, as UTF-8 bytes do', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
        const bytes = Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
        expect(Math.sign(compareText(a, b))).toBe(bytes);
      }),
      { numRuns: 2000 },
    );
    expect(compareText('\uE000', '😀')).toBeLessThan(0);
    expect('\uE000' < '😀').toBe(false);
  });
});

describe('projectEntity', () => {
  const entity = { uuid: 'u', type: 'dog', created: 1, modified: 2, name: 'fred', location: { latitude: 1, longitude: 2 }, tags: ['a'] };

  it('keeps only the selected paths, nested as in the entity', () => {
    expect(projectEntity(entity, ['name', 'location.latitude', 'missing', 'tags.x'])).toEqual({ name: 'fred', location: { latitude: 1 } });
    expect(projectEntity(entity, ['location', 'location.latitude'])).toEqual({ location: { latitude: 1, longitude: 2 } });
    expect(projectEntity(entity, null)).toEqual(entity);
  });

  it('never writes into the entity or an object prototype', () => {
    const parsed: Record<string, unknown> = JSON.parse('{"uuid":"u","type":"t","created":1,"modified":1,"__proto__":{"polluted":true},"a":{"b":1}}');
    const projection = projectEntity(parsed, ['__proto__.polluted', 'a.b']);
    expect(Object.getPrototypeOf(projection)).toBe(Object.prototype);
    expect(Object.hasOwn(projection, '__proto__')).toBe(true);
    expect(projection.a).not.toBe(parsed.a);
    const fresh: Record<string, unknown> = {};
    expect(fresh.polluted).toBeUndefined();
  });
});
