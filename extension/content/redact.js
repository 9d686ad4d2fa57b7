/**
 * Personal data in passages: find it and mask it, keeping the kind ("[email]").
 *
 * Job: the content script masks every passage with `RewindRedact.redact`
 * before it leaves the page. Finds e-mail addresses, payment card numbers
 * (Luhn, card-like grouping), IBANs (country length, mod 97), phone numbers
 * (international "+", North American, national numbers starting with 0, and
 * bare digit runs only after a word like "phone") and national IDs with a
 * check or a strict shape (US SSN/ITIN, UK NINO, French NIR, Spanish DNI/NIE,
 * Aadhaar; after a naming word Canadian SIN and Dutch BSN). Ordinary numbers
 * stay: years, dates, prices, versions, ISBNs, ports, ids inside URLs, math.
 * host/rewind/capture/redact.py is the same code in Python; the cases in
 * tests/data/redaction_cases.json run against both.
 * Never: keep, log or send what it finds; touch the DOM or `chrome.*`.
 *
 * Classic script and ES module at once (no import/export), like chunker.js:
 * injected with `scripting.executeScript({files})`, imported by node tests;
 * both get `globalThis.RewindRedact`. Wrapped in a block so injecting it twice
 * does not redeclare anything.
 */
{
  const MASKS = Object.freeze({
    email: "[email]",
    card: "[card number]",
    iban: "[IBAN]",
    national_id: "[national ID]",
    phone: "[phone number]",
  });

  const SEP = "[ .\\-\\u00a0\\u202f]";
  const URL_RE = /\b(?:https?:\/\/|www\.)[^ \t\n\r\f\v\u00a0\u2028\u2029<>"']+/gi;
  const EMAIL =
    /(?<![\w.%+-])[a-z0-9][a-z0-9._%+-]{0,63}@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,24}(?![\w-]|\.[a-z0-9])/gi;
  const FILE_SUFFIX = new Set("png jpg jpeg gif svg webp ico bmp avif js mjs css html htm md txt pdf json xml py".split(" "));
  const IBAN = /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}/g;
  const IBAN_HEAD = /[A-Z]{2}\d{2}(?: [A-Z0-9]{4})* $/; // inside an IBAN-like run
  const CARD =
    /(?<![\w.,/-])(?:\d{4}([ \-\u00a0]?)\d{4}\1\d{4}\1\d{4}(?:\1\d{1,3})?|\d{4}([ \-\u00a0])\d{6}\2\d{4,5}|\d{13,19})(?![\w-]|[.,]\d)/g;
  const SSN = /(?<![\w-])\d{3}-\d{2}-\d{4}(?![\w-])/g;
  const NINO = /(?<![A-Za-z0-9])[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![A-Za-z0-9])/g;
  const NIR = /(?<![\w])[12] ?\d{2} ?(?:0[1-9]|1[0-2]|[2-9]\d) ?(?:\d{2}|2[AB]) ?\d{3} ?\d{3} ?\d{2}(?![\w])/g;
  const DNI = /(?<![\w-])(?:\d{8}|[XYZ]-?\d{7})-?[A-Z](?![\w-])/g;
  const AADHAAR = /(?<![\w-])[2-9]\d{3} \d{4} \d{4}(?![\w-])/g;
  const NINE_GROUPED = /(?<![\w-])\d{3}[ -]?\d{3}[ -]?\d{3}(?![\w-])/g;
  const SSN_SPACED = /(?<![\w-])\d{3} ?\d{2} ?\d{4}(?![\w-])/g;

  const PHONE_INTL = /(?<![\w+])\+[1-9](?:[ .\-\u00a0\u202f()]{0,2}\d){6,13}(?!\w)/g;
  const PHONE_NANP =
    /(?<![\w+-])(?:\+?1[ .\-]?)?(?:\([2-9]\d{2}\) ?|[2-9]\d{2}[ .\-\u00a0])\d{3}[ .\-\u00a0]\d{4}(?![\w-]|[.,]\d)/g;
  const PHONE_ZERO = new RegExp(
    `(?<![\\w+.,/-])(?:\\(0\\d{1,4}\\) ?|0\\d{1,4}${SEP})\\d{2,8}(?:${SEP}\\d{2,8}){0,3}(?![\\w-]|[.,]\\d)`,
    "g",
  );
  const PHONE_BARE = /(?<![\w+.,/-])\+?\d{9,15}(?![\w-]|[.,]\d)/g;

  const PHONE_WORDS =
    /(phone|tel\b|tel\.|telephone|mobile|cell|fax|whatsapp|sms|text me|contact|ph\.|t[eéÉ]l[eéÉ]phone|t[eéÉ]l\.|telefon|tel[eéÉ]fono|handy)[^.!?\n]{0,20}$/i;
  const NOT_PHONE_WORDS = /(isbn|issn|doi|arxiv|version|ver\.|build|port|patent|pmid|[$€£¥]|\bid)[ :#]*$/i;
  const SSN_WORDS = /(ssn|social security|itin|tax id|taxpayer)[^.!?\n]{0,20}$/i;
  const SIN_WORDS = /(\bsin\b|social insurance)[^.!?\n]{0,20}$/i;
  const BSN_WORDS = /(bsn|burgerservicenummer|sofinummer)[^.!?\n]{0,20}$/i;

  /** IBAN lengths by country (ISO 13616 registry). @type {Map<string, number>} */
  const IBAN_LENGTHS = new Map(
    (
      "AD24 AE23 AL28 AT20 AZ28 BA20 BE16 BG22 BH22 BR29 BY28 CH21 CR22 CY28 CZ24 DE22 DK18 " +
      "DO28 EE20 EG29 ES24 FI18 FO18 FR27 GB22 GE22 GI23 GL18 GR27 GT28 HR21 HU28 IE22 IL23 " +
      "IQ23 IS26 IT27 JO30 KW30 KZ20 LB28 LC32 LI21 LT20 LU20 LV21 MC27 MD24 ME22 MK19 MR27 " +
      "MT31 MU30 NL18 NO15 PK24 PL28 PS29 PT25 QA29 RO24 RS22 SA24 SC31 SE24 SI19 SK24 SM27 " +
      "ST25 SV28 TL23 TN24 TR26 UA29 VA22 VG24 XK20"
    )
      .split(" ")
      .map((e) => [e.slice(0, 2), Number(e.slice(2))]),
  );
  const DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE";
  const NINO_BAD_PREFIXES = new Set(["BG", "GB", "NK", "KN", "TN", "NT", "ZZ"]);
  const VERHOEFF_D = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 4, 0, 6, 7, 8, 9, 5], [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
    [3, 4, 0, 1, 2, 8, 9, 5, 6, 7], [4, 0, 1, 2, 3, 9, 5, 6, 7, 8], [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
    [6, 5, 9, 8, 7, 1, 0, 4, 3, 2], [7, 6, 5, 9, 8, 2, 1, 0, 4, 3], [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
    [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
  ];
  const VERHOEFF_P = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 5, 7, 6, 2, 8, 3, 0, 9, 4], [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
    [8, 9, 1, 6, 0, 4, 3, 5, 2, 7], [9, 4, 5, 3, 1, 2, 6, 8, 7, 0], [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
    [2, 7, 9, 3, 8, 0, 6, 4, 1, 5], [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
  ];

  /** @param {string} s */
  const digitsOf = (s) => s.replace(/\D/g, "");

  /** @param {string} digits */
  function luhnOk(digits) {
    let total = 0;
    for (let i = 0; i < digits.length; i++) {
      let d = Number(digits[digits.length - 1 - i]);
      if (i % 2) d = d > 4 ? d * 2 - 9 : d * 2;
      total += d;
    }
    return total % 10 === 0;
  }

  /** @param {string} text */
  function ibanOk(text) {
    const s = text.replace(/ /g, "");
    if (IBAN_LENGTHS.get(s.slice(0, 2)) !== s.length || !/^\d\d$/.test(s.slice(2, 4))) return false;
    let rest = 0;
    for (const c of s.slice(4) + s.slice(0, 4)) {
      const n = String(parseInt(c, 36));
      rest = Number(String(rest) + n) % 97;
    }
    return rest === 1;
  }

  /** @param {string} text */
  function ssnOk(text) {
    const d = digitsOf(text);
    const area = Number(d.slice(0, 3));
    const group = Number(d.slice(3, 5));
    const serial = Number(d.slice(5));
    if (area >= 900) return (group >= 50 && group <= 65) || (group >= 70 && group <= 88) || (group >= 90 && group <= 92) || group >= 94;
    return area !== 0 && area !== 666 && group !== 0 && serial !== 0;
  }

  /** @param {string} text */
  function nirOk(text) {
    const s = text.replace(/ /g, "");
    const body = s.slice(0, 13).replace("2A", "19").replace("2B", "18");
    return 97 - (Number(body) % 97) === Number(s.slice(13));
  }

  /** @param {string} text */
  function dniOk(text) {
    const s = text.replace(/-/g, "");
    let number = s.slice(0, -1);
    if ("XYZ".includes(number[0])) number = String("XYZ".indexOf(number[0])) + number.slice(1);
    return DNI_LETTERS[Number(number) % 23] === s[s.length - 1];
  }

  /** @param {string} digits */
  function verhoeffOk(digits) {
    let c = 0;
    for (let i = 0; i < digits.length; i++) c = VERHOEFF_D[c][VERHOEFF_P[i % 8][Number(digits[digits.length - 1 - i])]];
    return c === 0;
  }

  /** @param {string} digits */
  function bsnOk(digits) {
    let total = 0;
    for (let i = 0; i < 8; i++) total += Number(digits[i]) * (9 - i);
    return Number(digits) !== 0 && (((total - Number(digits[8])) % 11) + 11) % 11 === 0;
  }

  /** The card number in `text` (maybe without a trailing group), or "". @param {string} text */
  function cardOk(text) {
    const groups = text.split(/[ \-\u00a0]/);
    const candidates = [text];
    if (groups.length === 5) candidates.push(text.slice(0, text.length - groups[4].length - 1));
    for (const c of candidates) {
      const d = digitsOf(c);
      if (d.length >= 13 && d.length <= 19 && "23456".includes(d[0]) && luhnOk(d)) return c;
    }
    return "";
  }

  /** @param {string} text @param {number} start @param {number} [n] */
  const before = (text, start, n = 30) => text.slice(Math.max(0, start - n), start);

  /** @param {string} text @param {RegExpExecArray} m */
  function ibanEnd(text, m) {
    const length = IBAN_LENGTHS.get(m[0].slice(0, 2)) ?? 0;
    const stop = m.index + m[0].length;
    let seen = 0;
    let end = m.index;
    while (seen < length && end < stop) {
      if (text[end] !== " ") seen++;
      end++;
    }
    if (seen < length || /^[A-Za-z0-9]/.test(text.slice(end, end + 1))) return -1;
    return ibanOk(text.slice(m.index, end)) ? end : -1;
  }

  /** @param {string} text @param {RegExpExecArray} m */
  function phoneOk(text, m) {
    const s = m[0];
    const d = digitsOf(s);
    // A national number needs 10 digits (11 from "00"), or 9 after a word like "phone".
    let least = s.startsWith("+") ? 8 : s.startsWith("00") ? 11 : 10;
    if (least === 10 && PHONE_WORDS.test(before(text, m.index))) least = 9;
    const count = (/** @type {string} */ ch) => s.split(ch).length - 1;
    if (d.length < least || d.length > 15 || count("(") !== count(")") || new Set(d).size < 3) return false;
    if (/[ .\-\u00a0\u202f()]{3}|[.\-]{2}|^\d{2}[.\-/]\d{2}[.\-/]\d{4}/.test(s)) return false; // separator runs, a date
    if (/^\d{3}(?: \d{3}){3,}$/.test(s)) return false; // a list of three-digit numbers
    // one of a run of numbers (a table row, a sequence)
    if (!s.startsWith("+") && (/\d $/.test(before(text, m.index, 2)) || /^ \d+ \d/.test(text.slice(m.index + s.length, m.index + s.length + 40)))) return false;
    return !(NOT_PHONE_WORDS.test(before(text, m.index, 12)) || IBAN_HEAD.test(before(text, m.index, 40)));
  }

  /** @param {RegExp} re @param {string} text @returns {RegExpExecArray[]} */
  function all(re, text) {
    re.lastIndex = 0;
    return [...text.matchAll(re)];
  }

  /**
   * Bisection over spans sorted by start: the first index whose start is >= at
   * (Python's bisect_left), or > at when `right` (bisect_right).
   * @param {{start: number}[]} spans @param {number} at @param {boolean} right
   */
  function firstAfter(spans, at, right) {
    let lo = 0;
    let hi = spans.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (spans[mid].start < at || (right && spans[mid].start === at)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * Personal data in `text`, as non-overlapping spans in text order.
   * @param {string} text @returns {{kind: keyof MASKS, start: number, end: number}[]}
   */
  function findPii(text) {
    /** @type {{kind: keyof MASKS, start: number, end: number}[]} sorted by start, never overlapping */
    const taken = [];
    const urls = all(URL_RE, text).map((m) => ({ start: m.index, end: m.index + m[0].length }));
    const inUrl = (/** @type {number} */ a, /** @type {number} */ b) => {
      const i = firstAfter(urls, a, true);
      return (i > 0 && urls[i - 1].end > a) || (i < urls.length && urls[i].start < b);
    };
    const add = (/** @type {keyof MASKS} */ kind, /** @type {number} */ a, /** @type {number} */ b) => {
      const i = firstAfter(taken, a, false);
      if ((i > 0 && taken[i - 1].end > a) || (i < taken.length && taken[i].start < b)) return;
      taken.splice(i, 0, { kind, start: a, end: b });
    };
    const end = (/** @type {RegExpExecArray} */ m) => m.index + m[0].length;

    for (const m of all(EMAIL, text)) {
      if (FILE_SUFFIX.has(m[0].slice(m[0].lastIndexOf(".") + 1).toLowerCase())) continue;
      if (/^:[\w~/]/.test(text.slice(end(m), end(m) + 2))) continue; // git@host:repo (scp)
      add("email", m.index, end(m));
    }
    for (const m of all(IBAN, text)) {
      const e = ibanEnd(text, m);
      if (e > 0) add("iban", m.index, e);
    }
    for (const m of all(CARD, text)) {
      const card = cardOk(m[0]);
      if (card && !(/^\d+$/.test(card) && inUrl(m.index, end(m))) && !IBAN_HEAD.test(before(text, m.index, 40))) {
        add("card", m.index, m.index + card.length);
      }
    }
    for (const [re, ok] of /** @type {[RegExp, (s: string) => boolean][]} */ ([[SSN, ssnOk], [NIR, nirOk], [DNI, dniOk]])) {
      for (const m of all(re, text)) if (!inUrl(m.index, end(m)) && ok(m[0])) add("national_id", m.index, end(m));
    }
    for (const m of all(NINO, text)) {
      if (!NINO_BAD_PREFIXES.has(m[0].slice(0, 2)) && !inUrl(m.index, end(m))) add("national_id", m.index, end(m));
    }
    for (const m of all(AADHAAR, text)) {
      if (verhoeffOk(digitsOf(m[0])) && !inUrl(m.index, end(m))) add("national_id", m.index, end(m));
    }
    /** @type {[RegExp, RegExp, (s: string) => boolean][]} */
    const named = [
      [SSN_SPACED, SSN_WORDS, ssnOk],
      [NINE_GROUPED, SIN_WORDS, (s) => luhnOk(digitsOf(s))],
      [NINE_GROUPED, BSN_WORDS, (s) => bsnOk(digitsOf(s))],
    ];
    for (const [re, words, ok] of named) {
      for (const m of all(re, text)) if (words.test(before(text, m.index)) && ok(m[0])) add("national_id", m.index, end(m));
    }
    for (const re of [PHONE_INTL, PHONE_NANP, PHONE_ZERO]) {
      for (const m of all(re, text)) if (!inUrl(m.index, end(m)) && phoneOk(text, m)) add("phone", m.index, end(m));
    }
    for (const m of all(PHONE_BARE, text)) {
      if (PHONE_WORDS.test(before(text, m.index)) && !inUrl(m.index, end(m)) && phoneOk(text, m)) add("phone", m.index, end(m));
    }
    return taken;
  }

  /**
   * `text` with every finding replaced by its mask, and how many of each kind.
   * @param {string} text @returns {{text: string, counts: Record<string, number>}}
   */
  function redact(text) {
    const findings = findPii(text);
    /** @type {Record<string, number>} */
    const counts = {};
    if (!findings.length) return { text, counts };
    let out = "";
    let pos = 0;
    for (const f of findings) {
      out += text.slice(pos, f.start) + MASKS[f.kind];
      counts[f.kind] = (counts[f.kind] ?? 0) + 1;
      pos = f.end;
    }
    return { text: out + text.slice(pos), counts };
  }

  globalThis.RewindRedact = Object.freeze({ redact, findPii, MASKS, luhnOk, ibanOk });
}
