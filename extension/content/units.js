/**
 * Words for every script, as the host counts them (host/rewind/capture/units.py, the same
 * integers, pinned by tests/data/chunk_units.json and word_count_cases.json).
 *
 * Job: measure text in words — a word between spaces is one, a Han character half a word,
 * a kana a third, a Thai, Lao, Myanmar or Khmer letter a quarter (what an embedding
 * model's tokenizer makes of them) — and cut long text into pieces of at most so many
 * words, between units, as slices (nothing lost but whitespace).
 * Never: read the DOM or `chrome.*`; it works on strings only.
 *
 * Classic script and ES module at once, like chunker.js (injected before it): defines
 * `globalThis.RewindUnits`, in a block so that injecting it twice is harmless.
 */
{
  // Each character of a script without spaces counts the share of a word it carries, in
  // twelfths; a word between spaces counts one (12). CJK and full-width punctuation
  // separate and weigh 0; combining marks stay on their letter.
  const WHOLE = 12;
  const DENSE = [
    [0x3400, 0x4dbf, 6], [0x4e00, 0x9fff, 6], [0xf900, 0xfaff, 6], [0x20000, 0x2ffff, 6],
    [0x3040, 0x30ff, 4], [0x31f0, 0x31ff, 4], [0xff66, 0xff9f, 4],
    [0x0e00, 0x0eff, 3], [0x1000, 0x109f, 3], [0x1780, 0x17ff, 3],
  ];
  const SPACE = /\s/;
  const MARK = /\p{M}/u;
  const ALNUM = /[\p{L}\p{N}]/u;

  /** Twelfths of a word for one code point of a script without spaces, else 0. @param {number} cp */
  function weight(cp) {
    if (cp < 0x0e00) return 0;
    for (const [first, last, w] of DENSE) if (cp >= first && cp <= last) return w;
    return 0;
  }

  /**
   * Units of `s`: [start, end, twelfths] for each word between separators and each
   * character of a script without spaces (UTF-16 offsets).
   * @param {string} s @returns {[number, number, number][]}
   */
  function units(s) {
    /** @type {[number, number, number][]} */
    const out = [];
    let start = -1;
    /** @type {[number, number, number] | null} */
    let last = null; // the dense unit a combining mark joins (Thai vowels and tone marks)
    for (let i = 0; i < s.length; ) {
      const cp = /** @type {number} */ (s.codePointAt(i));
      const size = cp > 0xffff ? 2 : 1;
      const ch = s.slice(i, i + size);
      if (last && MARK.test(ch)) {
        last[1] = i + size;
        i += size;
        continue;
      }
      if (last) out.push(last);
      last = null;
      const w = weight(cp);
      const sep = SPACE.test(ch) || (cp >= 0x3000 && cp <= 0x303f) || (cp >= 0xff00 && cp <= 0xff65 && !ALNUM.test(ch));
      if (w || sep) {
        if (start >= 0) out.push([start, i, WHOLE]);
        start = -1;
        if (w) last = [i, i + size, w];
      } else if (start < 0) start = i;
      i += size;
    }
    if (last) out.push(last);
    if (start >= 0) out.push([start, s.length, WHOLE]);
    return out;
  }

  /** Words in `s`, every script measured (rounded up over the whole text). @param {string} s */
  function countWords(s) {
    let t = 0;
    for (const u of units(s)) t += u[2];
    return Math.ceil(t / WHOLE);
  }

  /**
   * Split `text` into consecutive pieces of at most maxWords words and maxChars chars, cut
   * where a unit starts (a single unit longer than maxChars is cut hard); pieces are trimmed
   * slices of `text` that together hold all of it but whitespace.
   * @param {string} text @param {number} maxWords @param {number} maxChars
   */
  function splitLong(text, maxWords, maxChars) {
    const limit = Math.max(1, maxWords) * WHOLE;
    /** @type {string[]} */
    const pieces = [];
    let start = -1;
    let total = 0;
    /** The piece open since `start`, up to `end` (where the next unit starts). @param {number} end */
    const close = (end) => {
      if (start >= 0) {
        const p = text.slice(start, end).trim();
        if (p) pieces.push(p);
      }
      start = -1;
      total = 0;
    };
    for (let [s, e, w] of units(text)) {
      while (e - s > maxChars) {
        close(s);
        pieces.push(text.slice(s, s + maxChars));
        s += maxChars;
      }
      if (start >= 0 && (total + w > limit || e - start > maxChars)) close(s);
      if (start < 0) start = s;
      total += w;
    }
    close(text.length);
    return pieces;
  }

  /** Pieces of at most maxWords words (no character cap): the host's units.cut. */
  const cut = (/** @type {string} */ text, /** @type {number} */ maxWords) => splitLong(text, maxWords, Infinity);

  globalThis.RewindUnits = Object.freeze({ countWords, splitLong, cut });
}
