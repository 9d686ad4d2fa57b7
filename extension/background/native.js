/**
 * The one native-messaging port to Rewind's host.
 *
 * Job: open the port (`connectNative`), say hello, send requests with ids,
 * match replies (and streamed frames) to them, turn timeouts and disconnects
 * into coded errors, reconnect with backoff, and report a clear `host_missing`
 * state with the command that fixes it.
 * Never: hold anything that must survive the worker (the port is re-opened on
 * demand after a restart); interpret replies beyond the envelope; log page
 * text. `chrome.*` is reached only through the injected `connect` function.
 *
 * Envelope (PROTOCOL.md): request {id, type, ...}; reply {id, ok: true, ...}
 * or {id, ok: false, error: {code, message}}; a streamed reply is several
 * frames with the same id, the last one with `done: true`.
 */

import { Code, RewindError } from "../lib/errors.js";
import { FIX_COMMAND, FIX_FROM_SOURCE, PROTOCOL_VERSION } from "../lib/settings.js";
import { classifyDisconnect, skewError } from "./host-state.js";

export const TIMEOUTS = Object.freeze({
  default: 30_000,
  hello: 20_000, // the host loads its store (and maybe models) first
  index_page: 120_000, // the first page waits for the embedding model to load
  ask: 120_000, // between two frames of a streamed answer
  warm: 120_000, // the models load (a larger answering model takes a while)
  export: 60_000,
  backup: 60_000, // between two frames
  import_backup: 300_000, // the whole file is checked before the first progress frame
  import_chunk: 60_000,
});
const BACKOFF_MAX_MS = 60_000;
const HOST_MISSING_RETRY_MS = 5_000;

/**
 * @typedef {"idle"|"connecting"|"connected"|"host_missing"|"host_forbidden"|"disconnected"|"incompatible"|"error"} HostState
 * @typedef {{
 *   postMessage(msg: object): void,
 *   disconnect(): void,
 *   onMessage: {addListener(fn: (msg: any) => void): void},
 *   onDisconnect: {addListener(fn: () => void): void},
 * }} Port
 * @typedef {{
 *   hostName: string,
 *   connect: (name: string) => Port,
 *   lastErrorMessage: () => string,
 *   helloFields: (ask: (type: string, fields?: object) => Promise<any>) => Promise<object>,
 *   now?: () => number,
 *   setTimer?: (fn: () => void, ms: number) => any,
 *   clearTimer?: (t: any) => void,
 *   onStateChange?: (info: HostInfo) => void,
 *   wantsReconnect?: () => Promise<boolean>,
 * }} NativeOptions
 * @typedef {{
 *   state: HostState, error: {code: string, message: string, hint: string}|null,
 *   hello: object|null, fix: string, since: number,
 * }} HostInfo
 * @typedef {{
 *   timeoutMs?: number,              // per frame for streamed replies
 *   onFrame?: (frame: any) => void,  // every frame before the last (ask chunks, list parts)
 *   onId?: (id: string) => void,     // the request id, for cancel
 *   accumulate?: boolean,            // join list fields of all frames into the last (default true)
 * }} RequestOptions
 * @typedef {{
 *   type: string, resolve: (v: any) => void, reject: (e: any) => void,
 *   onFrame?: (frame: any) => void, timer: any, timeoutMs: number,
 *   accumulate: boolean, acc: Record<string, any[]>,
 * }} Pending
 */

export class NativeClient {
  /** @param {NativeOptions} opts */
  constructor(opts) {
    this.opts = opts;
    this.now = opts.now ?? Date.now;
    this.setTimer = opts.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = opts.clearTimer ?? ((t) => clearTimeout(t));
    /** @type {Port|null} */
    this.port = null;
    /** @type {Map<string, Pending>} */
    this.pending = new Map();
    this.seq = 0;
    this.prefix = Math.random().toString(36).slice(2, 8);
    /** @type {HostInfo} */
    this.info = { state: "idle", error: null, hello: null, fix: FIX_COMMAND, since: this.now() };
    /** @type {Promise<void>|null} */
    this.ready = null;
    this.failures = 0; // consecutive failed connections (backoff)
    this.retryAt = 0;
    this.reconnectTimer = null;
  }

  /** @param {HostState} state @param {HostInfo["error"]} [error] */
  setState(state, error = null) {
    this.info = { ...this.info, state, error, since: this.now() };
    try {
      this.opts.onStateChange?.(this.info);
    } catch (err) {
      console.error("rewind: state listener failed", err);
    }
  }

  /** A fresh request id (unique per worker life; the host sees one port at a time). */
  nextId() {
    this.seq += 1;
    return `${this.prefix}-${this.seq}`;
  }

  /**
   * Make sure the port is open and the hello handshake done.
   * @param {{force?: boolean}} [o] force: ignore the backoff gate (a person clicked "Try again")
   */
  async connect(o = {}) {
    if (this.port && this.info.state === "connected") return;
    if (this.ready) return this.ready;
    if (!o.force && this.now() < this.retryAt && this.info.error) {
      throw new RewindError(this.info.error.code, this.info.error.message, this.info.error.hint);
    }
    this.ready = this.open().finally(() => {
      this.ready = null;
    });
    return this.ready;
  }

  /** @private */
  async open() {
    this.setState("connecting", null);
    /** @type {Port} */
    let port;
    try {
      port = this.opts.connect(this.opts.hostName);
    } catch (err) {
      // Thrown synchronously when nativeMessaging is unavailable.
      this.failed("host_missing", Code.HOST_MISSING, String(/** @type {any} */ (err)?.message ?? err));
      throw new RewindError(Code.HOST_MISSING, "Rewind's helper could not be started.");
    }
    this.port = port;
    port.onMessage.addListener((msg) => this.onMessage(port, msg));
    port.onDisconnect.addListener(() => this.onDisconnect(port));
    /** @type {any} */
    let hello;
    try {
      // The fields may need the host first (list_profiles, allowed before hello).
      const fields = await this.opts.helloFields((type, f = {}) => this.send(port, type, f, {}));
      hello = await this.send(port, "hello", fields, { timeoutMs: TIMEOUTS.hello });
    } catch (err) {
      if (this.port === port) {
        // The host answered hello with an error (or not at all): report it, retry later.
        const e = err instanceof RewindError ? err : new RewindError(Code.INTERNAL, String(err));
        this.failures += 1;
        this.retryAt = this.now() + Math.min(BACKOFF_MAX_MS, 1000 * 2 ** (this.failures - 1));
        this.setState("error", e.toJSON());
        this.closePort(port);
      }
      throw err;
    }
    const version = Number(/** @type {any} */ (hello).protocol_version);
    if (Number.isFinite(version) && Math.floor(version) !== PROTOCOL_VERSION) {
      const err = skewError(version, /** @type {any} */ (hello).host_version);
      this.info = { ...this.info, hello };
      this.failures += 1;
      this.retryAt = this.now() + HOST_MISSING_RETRY_MS;
      this.setState("incompatible", err.toJSON());
      this.closePort(port);
      throw err;
    }
    this.failures = 0;
    this.retryAt = 0;
    this.info = { ...this.info, hello };
    this.setState("connected", null);
  }

  /**
   * Send a request; resolves with the final reply, rejects with a RewindError. An error
   * raised before the request left (no host, hello failed) carries `unsent: true`: the
   * queue then waits for the host without blaming the page.
   * @param {string} type @param {object} [fields]
   * @param {RequestOptions} [o]
   * @returns {Promise<any>}
   */
  async request(type, fields = {}, o = {}) {
    try {
      await this.connect();
    } catch (err) {
      throw unsent(err);
    }
    const port = this.port;
    if (!port) throw unsent(new RewindError(Code.HOST_DISCONNECTED, "Rewind's helper is not connected."));
    return this.send(port, type, fields, o);
  }

  /**
   * @private
   * @param {Port} port @param {string} type @param {object} fields
   * @param {RequestOptions} o
   */
  send(port, type, fields, o) {
    const id = this.nextId();
    const timeoutMs = o.timeoutMs ?? /** @type {any} */ (TIMEOUTS)[type] ?? TIMEOUTS.default;
    return new Promise((resolve, reject) => {
      /** @type {Pending} */
      const p = {
        type, resolve, reject, onFrame: o.onFrame, timeoutMs, timer: null,
        accumulate: o.accumulate !== false, acc: {},
      };
      p.timer = this.setTimer(() => this.onTimeout(id), timeoutMs);
      this.pending.set(id, p);
      o.onId?.(id);
      try {
        port.postMessage({ ...fields, id, type });
      } catch (err) {
        this.settle(id);
        reject(
          unsent(
            new RewindError(
              Code.HOST_DISCONNECTED,
              `Could not send to Rewind's helper: ${String(/** @type {any} */ (err)?.message ?? err)}`,
            ),
          ),
        );
      }
    });
  }

  /** Ask the host to stop a request (streamed ask). Best effort. @param {string} targetId */
  cancel(targetId) {
    const port = this.port;
    if (!port || !this.pending.has(targetId)) return false;
    const id = this.nextId();
    try {
      port.postMessage({ id, type: "cancel", target_id: targetId });
      return true;
    } catch {
      return false;
    }
  }

  /** @private @param {string} id @returns {Pending|undefined} */
  settle(id) {
    const p = this.pending.get(id);
    if (!p) return undefined;
    this.clearTimer(p.timer);
    this.pending.delete(id);
    return p;
  }

  /** @private @param {string} id */
  onTimeout(id) {
    const p = this.settle(id);
    if (!p) return;
    if (p.onFrame) this.cancel(id);
    p.reject(
      new RewindError(
        Code.TIMEOUT,
        `Rewind's helper did not answer "${p.type}" within ${Math.round(p.timeoutMs / 1000)} s.`,
      ),
    );
  }

  /** @private @param {Port} port @param {any} msg */
  onMessage(port, msg) {
    if (port !== this.port) return;
    if (!msg || typeof msg !== "object" || msg.id === undefined || msg.id === null) {
      console.warn("rewind: host frame without id ignored");
      return;
    }
    const id = String(msg.id);
    const p = this.pending.get(id);
    if (!p) return; // a late reply to a request that timed out or was cancelled
    if (msg.ok === false) {
      this.settle(id);
      const e = msg.error && typeof msg.error === "object" ? msg.error : {};
      if (e.code === "unknown_type") {
        // A request this extension knows and the helper does not: the helper is older.
        const host = String(/** @type {any} */ (this.info.hello)?.host_version ?? "an older version");
        p.reject(new RewindError(
          Code.HOST_INCOMPATIBLE,
          `Rewind's helper (${host}) is older than this extension and does not know "${p.type}".`,
          `Update the helper: ${FIX_COMMAND} (from Rewind's source folder: ${FIX_FROM_SOURCE}).`));
        return;
      }
      p.reject(
        new RewindError(
          String(e.code ?? Code.INTERNAL),
          String(e.message ?? "Rewind's helper reported an error."),
          typeof e.hint === "string" ? e.hint : undefined,
        ),
      );
      return;
    }
    // Frames before the last: a streamed answer's chunks, or part of a long
    // list (the host packs lists into frames under 1 MiB, done: false).
    const final = p.onFrame ? msg.done === true : msg.done !== false;
    if (!final) {
      this.clearTimer(p.timer);
      p.timer = this.setTimer(() => this.onTimeout(id), p.timeoutMs);
      if (p.accumulate) {
        for (const [k, v] of Object.entries(msg)) {
          if (Array.isArray(v)) (p.acc[k] ??= []).push(...v);
        }
      }
      try {
        p.onFrame?.(msg);
      } catch (err) {
        console.error("rewind: frame handler failed", err);
      }
      return;
    }
    this.settle(id);
    if (p.accumulate) {
      for (const [k, v] of Object.entries(p.acc)) {
        msg[k] = [...v, ...(Array.isArray(msg[k]) ? msg[k] : [])];
      }
    }
    p.resolve(msg);
  }

  /** @private @param {Port} port */
  onDisconnect(port) {
    if (port !== this.port) return;
    const message = this.opts.lastErrorMessage() || "Native host has exited.";
    this.port = null;
    const { state, code } = classifyDisconnect(message);
    const wasConnected = this.info.state === "connected";
    this.failed(state, code, message);
    for (const id of [...this.pending.keys()]) {
      const p = this.settle(id);
      p?.reject(new RewindError(code, friendly(code, message)));
    }
    if (state === "disconnected") this.scheduleReconnect(wasConnected);
  }

  /** @private @param {HostState} state @param {string} code @param {string} message */
  failed(state, code, message) {
    this.failures += 1;
    this.retryAt =
      state === "disconnected"
        ? this.now() + Math.min(BACKOFF_MAX_MS, 1000 * 2 ** (this.failures - 1))
        : this.now() + HOST_MISSING_RETRY_MS;
    this.setState(state, new RewindError(code, friendly(code, message)).toJSON());
  }

  /** @private @param {boolean} soon */
  scheduleReconnect(soon) {
    if (this.reconnectTimer) return;
    const delay = soon ? 0 : Math.max(0, this.retryAt - this.now());
    this.reconnectTimer = this.setTimer(async () => {
      this.reconnectTimer = null;
      try {
        if (this.opts.wantsReconnect && !(await this.opts.wantsReconnect())) return;
        await this.connect({ force: true });
      } catch {
        // state and backoff are updated by the failure itself
      }
    }, delay);
  }

  /** @param {Port} port */
  closePort(port) {
    if (this.port === port) this.port = null;
    try {
      port.disconnect();
    } catch {
      // already gone
    }
  }

  /** Close the port (tests, or before reinstall). */
  disconnect() {
    const port = this.port;
    if (!port) return;
    this.closePort(port);
    for (const id of [...this.pending.keys()]) {
      this.settle(id)?.reject(new RewindError(Code.HOST_DISCONNECTED, "Disconnected."));
    }
    this.setState("idle", null);
  }
}

/**
 * Mark an error as raised before the request reached the host.
 * @param {unknown} err @returns {RewindError}
 */
function unsent(err) {
  const e =
    err instanceof RewindError
      ? err
      : new RewindError(Code.HOST_DISCONNECTED, String(/** @type {any} */ (err)?.message ?? err));
  /** @type {any} */ (e).unsent = true;
  return e;
}

/** @param {string} code @param {string} raw */
function friendly(code, raw) {
  if (code === Code.HOST_MISSING) return "Rewind's helper isn't installed.";
  if (code === Code.HOST_FORBIDDEN) return "Rewind's helper does not accept this extension.";
  return `Rewind's helper disconnected (${raw.slice(0, 200)}).`;
}
