// A one-way mailbox in a SharedArrayBuffer: one Worker writes a text message, another
// blocks in Atomics.wait until it arrives. Between the controller and a bot this replaces
// two postMessage hops and two event-loop turns per move (only where the page is
// cross-origin isolated, which SharedArrayBuffer needs).
//
// Layout: Int32 [0] sequence number of the last message, [1] its length in bytes (or, for
// a message too big for the mailbox, OVERSIZE), [2] the size of a message too big,
// then the UTF-8 bytes. A message is never cut: one that does not fit arrives as an error.
const HEADER_BYTES = 12;
export const CHANNEL_BYTES = 1 << 20;
const OVERSIZE = -1;

export class ChannelOverflow extends Error {
  constructor(size) {
    super(`the message is ${size.toLocaleString("en")} bytes, more than the channel's `
      + `${CHANNEL_BYTES.toLocaleString("en")}`);
    this.name = "ChannelOverflow";
    this.size = size;
  }
}

export function newChannelBuffer() {
  return new SharedArrayBuffer(HEADER_BYTES + CHANNEL_BYTES);
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class Channel {
  constructor(buffer) {
    this.header = new Int32Array(buffer, 0, 3);
    this.bytes = new Uint8Array(buffer, HEADER_BYTES);
  }

  get seq() {
    return Atomics.load(this.header, 0);
  }

  // Posts `text` as message `seq`. A text too big for the mailbox is posted as an
  // over-size marker (the reader gets a ChannelOverflow) and ChannelOverflow is thrown
  // here too, so that neither side takes a cut message for a whole one.
  write(seq, text) {
    // TextEncoder, like TextDecoder, refuses shared memory: encode, then copy.
    const data = encoder.encode(String(text));
    const fits = data.length <= this.bytes.length;
    if (fits) this.bytes.set(data);
    Atomics.store(this.header, 1, fits ? data.length : OVERSIZE);
    Atomics.store(this.header, 2, fits ? 0 : Math.min(data.length, 0x7fffffff));
    Atomics.store(this.header, 0, seq);
    Atomics.notify(this.header, 0);
    if (!fits) throw new ChannelOverflow(data.length);
  }

  // Block until the sequence number is no longer `seen` (or `timeoutMs` passes);
  // returns true if a new message is there.
  wait(seen, timeoutMs = Infinity) {
    if (this.seq !== seen) return true;
    Atomics.wait(this.header, 0, seen, timeoutMs);
    return this.seq !== seen;
  }

  // The last message's text; throws ChannelOverflow for one that did not fit.
  read() {
    const stored = Atomics.load(this.header, 1);
    if (stored === OVERSIZE) throw new ChannelOverflow(Atomics.load(this.header, 2));
    const length = Math.min(Math.max(stored, 0), this.bytes.length);
    const copy = new Uint8Array(length); // TextDecoder does not read shared memory
    copy.set(this.bytes.subarray(0, length));
    return decoder.decode(copy);
  }
}
