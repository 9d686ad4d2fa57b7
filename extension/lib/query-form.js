/**
 * The form of a query, as the host reads it too (host/rewind/search/query_form.py): one
 * definition in two languages, pinned by the cases both test suites read
 * (tests/data/query_forms.json) and by a test that this file's word lists are the host's.
 *
 * Job: `looksLikeQuestion` (a sentence asking something: the side panel answers it at once
 * when auto-answer is on) and `rememberedWords` (a few words and no function word: words a
 * person remembers from a page, which search trusts BM25 for).
 * Never: touch the DOM or `chrome.*`; never decide anything but the form.
 */

/** The host's stop words (rewind.text.STOP_WORDS), for `rememberedWords`. */
export const STOP_WORDS = new Set(`
a about above after again against all also am an and any are aren't as at be because been
before being below between both but by can can't cannot could couldn't did didn't do does
doesn't doing don't down during each few for from further had hadn't has hasn't have haven't
having he he'd he'll he's her here here's hers herself him himself his how how's i i'd i'll
i'm i've if in into is isn't it it's its itself just let's may me might more most must
mustn't my myself no nor not of off on once only or other ought our ours ourselves out over
own s same shall shan't she she'd she'll she's should shouldn't so some such t than that
that's the their theirs them themselves then there there's these they they'd they'll they're
they've this those through to too under until up us very was wasn't we we'd we'll we're
we've were weren't what what's when when's where where's which while who who's whom why
why's will with won't would wouldn't you you'd you'll you're you've your yours yourself
yourselves
`.split(/\s+/).filter(Boolean));

/** Function words of other languages (query_form.py FUNCTION_WORDS), for `rememberedWords`. */
export const FUNCTION_WORDS = new Set(`
der das des dem ein eine einer eines einem einen und oder mit von zu zum zur im ist
sind für auf bei aus nach wie wird werden nicht auch sich
le les un une des de et ou en au aux dans avec est sont ce cette ces qui que ne pas sur d l
el los las unos unas del y o para por es al como
il lo gli di da della dei delle e è nel nella che non
os um uma do dos das em na com não
het een op voor te niet dat
в и на с по для не что как это из к о от
`.split(/\s+/).filter(Boolean));

/** First words that make a query of three words or more a question. */
export const QUESTION_WORDS = `
what why how who when where which is are does do did can could should explain compare
`.split(/\s+/).filter(Boolean);

const QUESTION_START = new RegExp(`^(${QUESTION_WORDS.join("|")})(?![A-Za-z0-9_])`);

/** Does the query read like a question (for auto-answer)? @param {string} q */
export function looksLikeQuestion(q) {
  const s = String(q ?? "").trim().toLowerCase();
  if (s.split(/\s+/).length < 3) return false;
  return s.endsWith("?") || QUESTION_START.test(s);
}

// Scripts written without spaces (host/rewind/text.py DENSE): a run is as many terms as
// it has character pairs, as BM25 counts it.
const DENSE = /[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f\u{20000}-\u{2ffff}]+/gu;

/** How many terms a word is to BM25 (query_form.py `terms`). @param {string} word */
export function terms(word) {
  const runs = word.match(DENSE) ?? [];
  const rest = word.replace(DENSE, "").replace(/^['-]+|['-]+$/g, "");
  return runs.reduce((n, r) => n + Math.max(1, [...r].length - 1), 0) + (rest || !runs.length ? 1 : 0);
}

/**
 * A few content words and no function words ("RNG-pruning HNSW") read as words a person
 * remembers from a page; a sentence ("how does HNSW prune ...") does not.
 * @param {string} q @param {number} maxTerms (Settings.fusion_remembered_max_terms)
 */
export function rememberedWords(q, maxTerms) {
  const words = String(q ?? "").toLowerCase().match(/[\p{L}\p{N}_'-]+/gu) ?? [];
  const n = words.reduce((sum, w) => sum + terms(w), 0);
  return n > 0 && n <= maxTerms && !words.some((w) => STOP_WORDS.has(w) || FUNCTION_WORDS.has(w));
}
