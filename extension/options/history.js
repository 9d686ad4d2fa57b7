/**
 * The options page's "Your browser's history" section: import the recent history again
 * (another span), and load, pause or stop loading its pages' text: the welcome page's
 * controls (lib/history-view.js).
 * Never: start anything without the person's click.
 */

export { mountHistory } from "../lib/history-view.js";
