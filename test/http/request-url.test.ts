import { describe, expect, it } from 'vitest';
import { parseRequestUrl } from '../../server/envelope.js';

// Request URLs as they reach hono: already a URL's href (or, on @hono/node-server's fast path,
// a string that differs from it only in characters URL would percent-encode in the query).
const HREFS = [
  'http://127.0.0.1:3999/bench/app/pets/rex',
  'http://127.0.0.1:3999/bench/app/pets?ql=select%20*%20where%20age%20%3E%203&limit=5&limit=6',
  'http://localhost/',
  'http://localhost/a?',
  'http://localhost/a?#',
  'http://localhost/a#frag?not=query',
  'http://localhost/a?x=1#frag&y=2',
  "http://localhost/a?name='quoted'&plus=a+b&empty=&flag",
  'http://localhost/a/%20b/caf%C3%A9?q=caf%C3%A9',
  'https://user:secret@Example.COM:443/x?y=/z',
  'http://EXAMPLE.com:80/x',
  'http://[::1]:8080/x/y/?a=1',
  'https://idp.example.com:8443',
  'http://h?x=/y',
];

describe('parseRequestUrl', () => {
  it.each(HREFS)('reads %s as URL does', (href) => {
    const url = new URL(href);
    const read = parseRequestUrl(href);
    expect(read.origin).toBe(url.origin);
    expect(read.pathname).toBe(url.pathname);
    expect([...read.searchParams]).toEqual([...url.searchParams]);
  });

  it('reads the origin of many authorities right (its cache of origins evicts)', () => {
    for (let i = 0; i < 1000; i++) expect(parseRequestUrl(`http://host-${i}.example/p`).origin).toBe(`http://host-${i}.example`);
    expect(parseRequestUrl('http://HOST-1.example/p').origin).toBe('http://host-1.example');
  });
});
