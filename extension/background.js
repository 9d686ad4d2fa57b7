/**
 * Rewind's service worker entry: it only imports (KeePassXC-Browser style).
 * The parts live in background/: native (the host port), dispatch + handlers/
 * (page requests), tracker + dwell (reading time), gate (the rules), indexer +
 * extractor + delivery + queue (capture and delivery), listeners (wiring).
 * Never put logic here.
 */
import "./background/listeners.js";
