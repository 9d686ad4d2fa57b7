/**
 * Rewind's service worker entry: it only imports (KeePassXC-Browser style).
 * The parts live in background/: native (the host port), router (page
 * requests), tracker + dwell (reading time), indexer + queue (delivery),
 * listeners (wiring). Never put logic here.
 */
import "./background/listeners.js";
