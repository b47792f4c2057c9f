/**
 * Bidirectional-text controls (U+202A-U+202E embeddings and overrides, U+2066-U+2069 isolates,
 * U+200E/U+200F marks, U+061C) in a scenario's, role's or mark's name, or in a log line, reorder
 * what follows them on the screen: `deadline-\u202Eliated` reads as another word, and the text after
 * it in the same line (the status, the next name) is shown reversed. Every report shows them as
 * visible text instead ("<U+202E>"), in the terminal and in the HTML report, so what is read is what
 * is there.
 */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

export function showBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, (c) => `<U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}>`);
}
