/**
 * The messages of the extension's long-lived ports ("ask", "export", "backup", "import",
 * "pull_model"): one protocol for every port, between a page (side panel, options) and the
 * worker (background/ports.js), which relays one host request per port.
 *
 * Job: name each message type once (`Msg`) and describe each message (the typedefs below),
 * for both ends to import. The conversation on every port:
 *   page -> worker   start {...the request's fields}   once, opens the host request
 *                    stop                              cancel it (closing the port does too)
 *   worker -> page   context {used_tab, title}         ask only: what the question goes with
 *                    chunk {text}                      a streamed answer's checked text
 *                    frame {frame}                     any other host frame before the last
 *                    done {reply}                      the host's last frame: the reply
 *                    error {error}                     the request failed; nothing follows
 * Never: hold logic or state; touch the DOM or `chrome.*` (node tests import this).
 */

export const Msg = Object.freeze({
  START: "start",
  STOP: "stop",
  CONTEXT: "context",
  CHUNK: "chunk",
  FRAME: "frame",
  DONE: "done",
  ERROR: "error",
});

/**
 * @typedef {{code: string, message: string, hint?: string}} ErrorValue
 *
 * Page -> worker.
 * @typedef {{type: "start"} & Record<string, unknown>} StartMessage
 * @typedef {{type: "stop"}} StopMessage
 * @typedef {StartMessage|StopMessage} ToWorker
 *
 * Worker -> page.
 * @typedef {{type: "context", used_tab: boolean, title: string}} ContextMessage
 * @typedef {{type: "chunk", text: string}} ChunkMessage
 * @typedef {{type: "frame", frame: Record<string, any>}} FrameMessage
 * @typedef {{type: "done", reply: Record<string, any>}} DoneMessage
 * @typedef {{type: "error", error: ErrorValue}} ErrorMessage
 * @typedef {ContextMessage|ChunkMessage|FrameMessage|DoneMessage|ErrorMessage} ToPage
 */

/** Does this message end the port's request (done or error)? @param {{type?: unknown}|null|undefined} m */
export function isEnd(m) {
  return m?.type === Msg.DONE || m?.type === Msg.ERROR;
}
