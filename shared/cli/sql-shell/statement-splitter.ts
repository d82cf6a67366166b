/**
 * Splits SQL input into statements at `;`, as Flink's SQL client does: a statement may span
 * lines and ends at a semicolon outside string literals ('…', with '' inside), quoted
 * identifiers ("…", `…`), line comments (-- …) and block comments. Each statement keeps the
 * line and column where it starts in the input, so errors point into what the user typed.
 */

/** A complete statement: its text (without the `;`) and where it starts in the input. */
export interface SplitStatement {
  readonly text: string;
  /** 1-based line and column of the statement's first character in the input. */
  readonly line: number;
  readonly column: number;
}

type Mode = 'code' | 'single' | 'double' | 'backtick' | 'line-comment' | 'block-comment';

/** Feeds text in pieces (lines as typed, or a whole file) and hands out complete statements. */
export class StatementSplitter {
  private buffer = '';
  private mode: Mode = 'code';
  /** Input position of the buffer's first character. */
  private startLine = 1;
  private startColumn = 1;
  /** Input position after the last character fed. */
  private line = 1;
  private column = 1;

  /** Adds text; returns the statements it completes, in order. */
  feed(text: string): SplitStatement[] {
    const out: SplitStatement[] = [];
    for (let i = 0; i < text.length; i++) {
      const c = text[i] as string;
      const next = text[i + 1];
      if (this.buffer === '' ) {
        this.startLine = this.line;
        this.startColumn = this.column;
      }
      this.buffer += c;
      switch (this.mode) {
        case 'code':
          if (c === "'") this.mode = 'single';
          else if (c === '"') this.mode = 'double';
          else if (c === '`') this.mode = 'backtick';
          else if (c === '-' && next === '-') this.mode = 'line-comment';
          else if (c === '/' && next === '*') {
            this.mode = 'block-comment';
            this.buffer += next;
            this.advance(c);
            i++;
            this.advance(next);
            continue;
          } else if (c === ';') {
            const statement = this.take();
            if (statement) out.push(statement);
          }
          break;
        case 'single':
          if (c === "'") this.mode = 'code'; // '' re-enters 'single' at the next quote
          break;
        case 'double':
          if (c === '"') this.mode = 'code';
          break;
        case 'backtick':
          if (c === '`') this.mode = 'code';
          break;
        case 'line-comment':
          if (c === '\n') this.mode = 'code';
          break;
        case 'block-comment':
          if (c === '*' && next === '/') {
            this.buffer += next;
            this.advance(c);
            i++;
            this.advance(next);
            this.mode = 'code';
            continue;
          }
          break;
      }
      this.advance(c);
    }
    return out;
  }

  /** Whether some statement text is pending (not blank, not only comments). */
  get pending(): boolean {
    return meaningful(this.buffer).trim() !== '';
  }

  /** The text of the unfinished statement. */
  get rest(): string {
    return this.buffer;
  }

  /** Drops the unfinished statement (Ctrl-C at a continuation prompt). */
  discard(): void {
    this.buffer = '';
    this.mode = 'code';
  }

  /** Ends the input: the unfinished statement, if any, as a statement (a missing final `;`). */
  end(): SplitStatement | undefined {
    const text = this.buffer;
    this.buffer = '';
    this.mode = 'code';
    return this.statementOf(text);
  }

  private advance(c: string): void {
    if (c === '\n') {
      this.line++;
      this.column = 1;
    } else {
      this.column++;
    }
  }

  /** The buffer up to (without) its final `;` as a statement; resets the buffer. */
  private take(): SplitStatement | undefined {
    const text = this.buffer.slice(0, -1);
    this.buffer = '';
    return this.statementOf(text);
  }

  private statementOf(raw: string): SplitStatement | undefined {
    if (meaningful(raw).trim() === '') return undefined;
    // The statement starts at its first character that is not blank.
    let line = this.startLine;
    let column = this.startColumn;
    let i = 0;
    while (i < raw.length && /\s/.test(raw[i] as string)) {
      if (raw[i] === '\n') {
        line++;
        column = 1;
      } else column++;
      i++;
    }
    return { text: raw.slice(i).replace(/\s+$/, ''), line, column };
  }
}

/** The text with comments blanked out (strings kept), to tell a statement from a comment. */
function meaningful(text: string): string {
  return text.replace(/--[^\n]*/g, ' ').replace(/\/\*[\s\S]*?(\*\/|$)/g, ' ');
}
