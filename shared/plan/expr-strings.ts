/**
 * String helpers behind the SQL string functions, with Flink's semantics: characters are Unicode
 * code points (as Flink's UTF-8 strings count them), ordering is code point order (the UTF-8 byte
 * order Flink compares by), TRIM removes spaces only, SUBSTRING is 1-based and accepts negative
 * positions from the end.
 */

/** Maps a UTF-16 unit ≥ U+D800 so that surrogates sort above U+E000–U+FFFF, as code points do. */
function codePointOrderUnit(c: number): number {
  return c >= 0xe000 ? c - 0x800 : c + 0x2000;
}

/**
 * Compares two strings in code point order (negative, zero, positive). JavaScript's `<` compares
 * UTF-16 units, which differs only between astral characters and U+E000–U+FFFF.
 */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return x >= 0xd800 && y >= 0xd800 ? codePointOrderUnit(x) - codePointOrderUnit(y) : x - y;
  }
  return a.length - b.length;
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** Number of Unicode code points, as Flink counts characters. */
export function codePointLength(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // A high surrogate followed by a low one is one character.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** The first `n` code points of `text`. */
export function truncateCodePoints(text: string, n: number): string {
  if (text.length <= n) return text;
  let units = 0;
  for (let count = 0; count < n && units < text.length; count++) {
    const c = text.charCodeAt(units);
    units += c >= 0xd800 && c <= 0xdbff && units + 1 < text.length ? 2 : 1;
  }
  return text.slice(0, units);
}

/**
 * `SUBSTRING(text FROM pos [FOR length])` as Flink computes it: `pos` is 1-based, 0 means 1, a
 * negative `pos` counts from the end; a start beyond either end gives `''`. `length` must not be
 * negative (the caller rejects that); `Infinity` means "to the end".
 */
export function substringSql(text: string, pos: number, length: number): string {
  if (text === '') return '';
  // Without surrogate pairs, UTF-16 indexes are character indexes.
  const chars = SURROGATE.test(text) ? Array.from(text) : undefined;
  const count = chars === undefined ? text.length : chars.length;
  let start: number;
  if (pos > 0) {
    start = pos - 1;
    if (start >= count) return '';
  } else if (pos < 0) {
    start = count + pos;
    if (start < 0) return '';
  } else {
    start = 0;
  }
  const end = count - start < length ? count : start + length;
  return chars === undefined ? text.slice(start, end) : chars.slice(start, end).join('');
}

/** Removes leading and/or trailing spaces (U+0020 only, like Flink's TRIM). */
export function trimSpaces(text: string, leading: boolean, trailing: boolean): string {
  let start = 0;
  let end = text.length;
  if (leading) while (start < end && text.charCodeAt(start) === 32) start++;
  if (trailing) while (end > start && text.charCodeAt(end - 1) === 32) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

const REGEX_SPECIAL = /[.*+?^${}()|[\]\\/]/g;

/**
 * Translates a SQL LIKE pattern (`%` any run, `_` one character, optional one-character escape)
 * into an anchored RegExp; returns an error message instead for a bad escape.
 */
export function likeToRegExp(pattern: string, escape: string | undefined): RegExp | string {
  if (escape !== undefined && escape.length !== 1) return `LIKE escape must be one character, got '${escape}'`;
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === escape) {
      const next = pattern[i + 1];
      if (next !== '%' && next !== '_' && next !== escape) return `invalid escape sequence in LIKE pattern '${pattern}'`;
      source += next.replace(REGEX_SPECIAL, '\\$&');
      i++;
    } else if (c === '%') {
      source += '[\\s\\S]*';
    } else if (c === '_') {
      source += '[\\s\\S]';
    } else {
      source += c.replace(REGEX_SPECIAL, '\\$&');
    }
  }
  // The 'u' flag makes `_` match one code point, not one UTF-16 unit.
  return new RegExp(`^${source}$`, 'u');
}

/**
 * Compiles a (Java-style) regular expression, or returns `undefined` when JavaScript cannot
 * compile it. The common syntax (classes, groups, quantifiers, anchors) is the same in both.
 */
export function compileRegExp(source: string): RegExp | undefined {
  try {
    return new RegExp(source);
  } catch {
    return undefined;
  }
}

/**
 * `REGEXP_EXTRACT(text, regex, index)`: group `index` of the first match (0 is the whole match);
 * NULL when nothing matches, the group did not participate or the index is out of range — Flink
 * returns NULL for all of these.
 */
export function regexpExtract(text: string, regex: RegExp, index: number): string | null {
  if (index < 0) return null;
  const match = regex.exec(text);
  if (match === null || index >= match.length) return null;
  return match[index] ?? null;
}

const WHITESPACE = /\s/;

/**
 * `SPLIT_INDEX(text, separator, index)`: the `index`-th (0-based) token of `text` split at every
 * occurrence of `separator`, keeping empty tokens (Apache Commons'
 * splitByWholeSeparatorPreserveAllTokens, which Flink uses; an empty separator splits at
 * whitespace). NULL for a negative or too large index and for the empty string, which has no tokens.
 */
export function splitIndex(text: string, separator: string, index: number): string | null {
  if (index < 0 || text === '') return null;
  const tokens = separator === '' ? text.split(WHITESPACE) : text.split(separator);
  return index < tokens.length ? tokens[index]! : null;
}

/** The characters SIMILAR TO gives a meaning (Calcite's SQL_SIMILAR_SPECIALS). */
const SIMILAR_SPECIALS = '[]()|^-+*_%?{}';
/** The characters a JavaScript regular expression (with the `u` flag) needs escaped to be literal. */
const JS_SYNTAX = '^$\\.*+?()[]{}|/';
/** SIMILAR TO's POSIX classes inside `[…]`, as Calcite maps them (Java's ASCII classes). */
const SIMILAR_CLASSES: readonly (readonly [string, string])[] = [
  ['[:ALPHA:]', 'A-Za-z'],
  ['[:alpha:]', 'A-Za-z'],
  ['[:UPPER:]', 'A-Z'],
  ['[:upper:]', 'A-Z'],
  ['[:LOWER:]', 'a-z'],
  ['[:lower:]', 'a-z'],
  ['[:DIGIT:]', '0-9'],
  ['[:digit:]', '0-9'],
  ['[:SPACE:]', ' '],
  ['[:space:]', ' '],
  ['[:WHITESPACE:]', ' \\t\\n\\x0B\\f\\r'],
  ['[:whitespace:]', ' \\t\\n\\x0B\\f\\r'],
  ['[:ALNUM:]', 'A-Za-z0-9'],
  ['[:alnum:]', 'A-Za-z0-9'],
];

/** A character as a literal in a `u`-flag regular expression (inside a class, `-` too). */
function literalChar(c: string, inClass: boolean): string {
  return JS_SYNTAX.includes(c) || (inClass && c === '-') ? `\\${c}` : c;
}

/**
 * Translates a SQL `SIMILAR TO` pattern into an anchored RegExp, as Calcite's
 * `sqlToRegexSimilar` (which Flink copies in SqlLikeUtils) turns it into a Java regex: `_` is any
 * character, `%` any run, `|`, `*`, `+`, `?`, `{m,n}`, `( )` and `[…]` (with ranges, `^` and
 * `[:ALPHA:]`-style classes) keep their regex meaning, `.` too (Calcite passes it through), `$`
 * and `\` are literal; the escape character makes the special character after it literal.
 * Returns an error message instead for an invalid escape or pattern.
 */
export function similarToRegExp(pattern: string, escape: string | undefined): RegExp | string {
  if (escape !== undefined && [...escape].length !== 1) return `Invalid escape character '${escape}'`;
  const invalid = `Invalid regular expression '${pattern}'`;
  const chars = [...pattern];
  // SQL 2003 Part 2 Section 8.6 General Rule 3.b: a special escape character must escape a special one.
  if (escape !== undefined && SIMILAR_SPECIALS.includes(escape)) {
    for (let i = 0; i < chars.length; i++) {
      if (chars[i] !== escape) continue;
      const next = chars[i + 1];
      if (next === undefined || (!SIMILAR_SPECIALS.includes(next) && next !== escape)) return `Invalid escape sequence '${pattern}', ${i}`;
      i++;
    }
  }
  let source = '';
  let inClass = false;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === escape) {
      const next = chars[i + 1];
      if (next === undefined || (!SIMILAR_SPECIALS.includes(next) && next !== escape)) return `Invalid escape sequence '${pattern}', ${i}`;
      source += literalChar(next, inClass);
      i++;
    } else if (inClass) {
      if (c === ']') {
        inClass = false;
        source += ']';
      } else if (c === '-' || c === '^') {
        source += c;
      } else if (c === '[' && chars[i + 1] === ':') {
        const rest = chars.slice(i).join('');
        const named = SIMILAR_CLASSES.find(([name]) => rest.startsWith(name));
        if (named === undefined) return invalid;
        source += named[1];
        i += [...named[0]].length - 1;
      } else if (SIMILAR_SPECIALS.includes(c)) {
        return invalid;
      } else {
        source += literalChar(c, true);
      }
    } else if (c === '_') {
      source += '.';
    } else if (c === '%') {
      source += '[\\s\\S]*';
    } else if (c === '[') {
      inClass = true;
      source += '[';
    } else if (c === ']') {
      return invalid;
    } else if (c === '\\' || c === '$') {
      source += `\\${c}`;
    } else {
      source += c;
    }
  }
  if (inClass) return invalid;
  try {
    // The 'u' flag makes `_` and `.` match one code point, as Java's regex does.
    return new RegExp(`^(?:${source})$`, 'u');
  } catch {
    return invalid;
  }
}
