/**
 * A passage's quality, as the host computes it too (host/rewind/capture/quality.py): one
 * definition in two languages, pinned by the cases both test suites read
 * (tests/data/passage_quality.json).
 *
 * Job: score a passage in [0, 1] from what it is made of — its words, a heading, how much
 * of its text is list items, links or navigation, a full sentence, boilerplate — as the
 * chunker measured them in the DOM.
 * Never: read the DOM or `chrome.*`; it scores the numbers and the text it is given.
 *
 * Classic script and ES module at once, like chunker.js (injected before it): defines
 * `globalThis.RewindQuality`, in a block so that injecting it twice is harmless.
 */
{
  const BOILERPLATE =
    /(cookie|privacy policy|terms of (use|service)|all rights reserved|©|copyright [0-9]|subscribe to|sign up for|newsletter|accept all|skip to (main )?content|follow us)/i;
  const SENTENCE_END = /[.!?…]["')\]»”’]?(\s|$)|[。！？]/; // CJK full stops need no space

  /**
   * Quality in [0, 1]: length, a heading, a list and full sentences raise it; link-heavy,
   * navigation and boilerplate text lower it. `chars` is the passage's own text (whitespace
   * between its pieces aside); `listChars`, `linkChars`, `navChars` the part of it in list
   * items, links and navigation.
   * @param {string} text
   * @param {{words: number, heading: boolean, chars: number, listChars: number,
   *          linkChars: number, navChars: number}} f
   */
  function passageQuality(text, f) {
    let q = 0.5;
    if (f.words >= 40) q += 0.15;
    else if (f.words >= 20) q += 0.05;
    else if (f.words < 12) q -= 0.15;
    if (f.heading) q += 0.1;
    if (f.chars > 0 && f.listChars / f.chars > 0.3) q += 0.05;
    if (SENTENCE_END.test(text)) q += 0.1;
    const linkDensity = f.chars > 0 ? f.linkChars / f.chars : 0;
    if (linkDensity > 0.3) q -= 0.45 * linkDensity;
    const navShare = f.chars > 0 ? f.navChars / f.chars : 0;
    q -= 0.3 * navShare;
    if (BOILERPLATE.test(text)) q -= 0.2;
    return Math.round(Math.min(1, Math.max(0, q)) * 1000) / 1000;
  }

  globalThis.RewindQuality = Object.freeze({ passageQuality });
}
