/** The types of ./sequencer.js that the TypeScript tests use. */
export declare const STUB_FREE: RegExp;
export declare const EXCLUSIVE: RegExp;
