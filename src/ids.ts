import { randomFillSync } from 'node:crypto';
import { v7 as uuidv7, validate } from 'uuid';

// uuid's v7() draws its 16 random bytes from crypto.getRandomValues on every call, which costs
// more than the rest of the id; one draw of 4 KiB serves 256 ids.
const pool = new Uint8Array(4096);
let poolOffset = pool.length;

function randomBytes(): Uint8Array {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  poolOffset += 16;
  return pool.subarray(poolOffset - 16, poolOffset);
}

// v7() keeps ids monotonic only when called without options; with our own random bytes the
// clock and counter are kept here, as RFC 9562 method 1 (and uuid's own state) does: a random
// 31-bit counter at each new millisecond, incremented within one, carrying into the time.
const clock = { msecs: -Infinity, seq: 0 };

/** Time-ordered UUIDs (RFC 9562 v7): ids sort by creation, so they break ties in `created`. */
export function newUuid(): string {
  const random = randomBytes();
  const now = Date.now();
  if (now > clock.msecs) {
    clock.msecs = now;
    clock.seq = ((random[6] & 0x7f) << 24) | (random[7] << 16) | (random[8] << 8) | random[9];
  } else {
    clock.seq = (clock.seq + 1) | 0;
    if (clock.seq === 0) clock.msecs += 1;
  }
  return uuidv7({ random, msecs: clock.msecs, seq: clock.seq });
}

export function isUuid(text: string): boolean {
  return validate(text);
}
