/**
 * Content hash of a page's passages (SHA-256, hex).
 *
 * Job: one stable fingerprint per extracted page, so an unchanged revisit
 * sends only a visit record and nothing is embedded again.
 * Never: touch `chrome.*`; it runs in the worker (a secure context, where
 * `crypto.subtle` exists even when the page itself is plain http) and in node.
 */

/**
 * @param {{text: string, position: number}[]} passages
 * @returns {Promise<string>}
 */
export async function contentHash(passages) {
  const joined = passages.map((p) => `${p.position}\u001f${p.text}`).join("\u001e");
  const bytes = new TextEncoder().encode(joined);
  const digest = await globalThis.crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
