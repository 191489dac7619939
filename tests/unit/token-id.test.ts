// The wrapper hashes tokens itself (engine/pipeline-call.ts tokenId) instead of handing strings to the engine one
// boundary crossing each: it must give cpp/random.h's token_id() of the bytes the engine used to
// receive, FNV-1a over UTF-8 as Emscripten's std::string conversion writes it.
import { describe, expect, it } from 'vitest';
import { tokenId } from '../../web/src/engine/pipeline-call';
import { Rng } from './helpers';

function fnv1a(bytes: Uint8Array): number {
  let hash = 2166136261;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 16777619) >>> 0;
  return hash;
}

describe('tokenId', () => {
  it('is FNV-1a of the UTF-8 bytes (values computed independently)', () => {
    expect(tokenId('')).toBe(0x811c9dc5);
    expect(tokenId('a')).toBe(0xe40c292c);
    expect(tokenId('the')).toBe(0xb40eb21c);
    expect(tokenId('tired.')).toBe(0x8448b821);
    expect(tokenId('é')).toBe(0x1e9de8c1);
    expect(tokenId('日本')).toBe(0x9f26ee51);
    expect(tokenId('😀')).toBe(0x33a29608);
  });

  it('agrees with TextEncoder on well-formed strings', () => {
    const rng = new Rng(0x70c3);
    const encoder = new TextEncoder();
    const ranges = [
      [0x20, 0x7e],
      [0xa0, 0x7ff],
      [0x800, 0xd7ff],
      [0xe000, 0xffff],
      [0x10000, 0x10ffff],
    ] as const;
    for (let i = 0; i < 2000; i++) {
      let token = '';
      for (let k = rng.int(0, 8); k > 0; k--) {
        const [lo, hi] = ranges[rng.int(0, ranges.length - 1)]!;
        token += String.fromCodePoint(rng.int(lo, hi));
      }
      expect(tokenId(token), JSON.stringify(token)).toBe(fnv1a(encoder.encode(token)));
    }
  });

  it('pairs a lone surrogate with the next code unit (or 0), as embind did', () => {
    expect(tokenId('\uD800')).toBe(fnv1a(Uint8Array.of(0xf0, 0x90, 0x80, 0x80)));
    expect(tokenId('a\uD800')).toBe(fnv1a(Uint8Array.of(0x61, 0xf0, 0x90, 0x80, 0x80)));
    expect(tokenId('\uD800b')).toBe(fnv1a(Uint8Array.of(0xf0, 0x90, 0x81, 0xa2))); // 'b' is consumed: 0x10000 | 98
  });
});
