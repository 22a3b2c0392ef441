// A one-way mailbox in a SharedArrayBuffer: one Worker writes a text message, another
// blocks in Atomics.wait until it arrives. Between the controller and a bot this replaces
// two postMessage hops and two event-loop turns per move (only where the page is
// cross-origin isolated, which SharedArrayBuffer needs).
//
// Layout: Int32 [0] sequence number of the last message, [1] its length in bytes,
// then the UTF-8 bytes.
const HEADER_BYTES = 8;
export const CHANNEL_BYTES = 1 << 20; // a message is cut at 1 MiB (bot replies are capped anyway)

export function newChannelBuffer() {
  return new SharedArrayBuffer(HEADER_BYTES + CHANNEL_BYTES);
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class Channel {
  constructor(buffer) {
    this.header = new Int32Array(buffer, 0, 2);
    this.bytes = new Uint8Array(buffer, HEADER_BYTES);
  }

  get seq() {
    return Atomics.load(this.header, 0);
  }

  write(seq, text) {
    // TextEncoder, like TextDecoder, refuses shared memory: encode, then copy.
    const data = encoder.encode(text);
    const length = Math.min(data.length, this.bytes.length);
    this.bytes.set(length === data.length ? data : data.subarray(0, length));
    Atomics.store(this.header, 1, length);
    Atomics.store(this.header, 0, seq);
    Atomics.notify(this.header, 0);
  }

  // Block until the sequence number is no longer `seen` (or `timeoutMs` passes);
  // returns true if a new message is there.
  wait(seen, timeoutMs = Infinity) {
    if (this.seq !== seen) return true;
    Atomics.wait(this.header, 0, seen, timeoutMs);
    return this.seq !== seen;
  }

  read() {
    const length = Math.min(Math.max(Atomics.load(this.header, 1), 0), this.bytes.length);
    const copy = new Uint8Array(length); // TextDecoder does not read shared memory
    copy.set(this.bytes.subarray(0, length));
    return decoder.decode(copy);
  }
}
