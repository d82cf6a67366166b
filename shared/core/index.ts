/**
 * The core module's public surface: types, changelog rows, errors, type text, timestamps,
 * decimals and the JSON record codec.
 */
export * from './types.ts';
export * from './row.ts';
export * from './errors.ts';
export * from './type-parse.ts';
export * from './timestamp.ts';
export * from './decimal.ts';
export * from './codec.ts';
