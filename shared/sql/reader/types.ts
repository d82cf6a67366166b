/** Reading a data type's text: `DECIMAL(10, 2) NOT NULL`, `ROW<name STRING, tags ARRAY<STRING>>`. */
import { Cursor } from './cursor.ts';

/** Words after a column's type that are not part of it. */
const COLUMN_CLAUSES = ['METADATA', 'PRIMARY', 'COMMENT', 'CONSTRAINT'];

/** The type reader: types are kept as text for the core type parser (shared/core/type-parse.ts). */
export class TypeReader extends Cursor {
  /**
   * The text of a type, up to a `,` or `)` outside its brackets, or one of `stopWords` (and the
   * column clauses METADATA, PRIMARY KEY, COMMENT). Tokens are joined as the type parser reads
   * them: `DECIMAL(10, 2)`, `ARRAY<STRING>`, `TIMESTAMP(3) WITH LOCAL TIME ZONE`.
   */
  protected typeText(stopWords: readonly string[] = []): string {
    const first = this.peek();
    if (first.kind !== 'ident') this.fail('expected a data type');
    const parts: string[] = [];
    let depth = 0;
    while (this.peek().kind !== 'eof') {
      const t = this.peek();
      if (depth === 0 && t.kind === 'op' && [',', ')', ';'].includes(t.text)) break;
      if (depth === 0 && t.kind === 'ident' && (COLUMN_CLAUSES.includes(t.upper) || stopWords.includes(t.upper))) break;
      if (t.kind === 'op' && (t.text === '(' || t.text === '<')) depth++;
      if (t.kind === 'op' && (t.text === ')' || t.text === '>')) depth--;
      if (t.kind === 'op' && t.text === '<>') this.fail('expected a data type');
      parts.push(t.kind === 'qident' ? t.text : t.kind === 'string' ? `'${t.text.replace(/'/g, "''")}'` : t.text);
      this.i++;
    }
    if (depth !== 0) this.fail(`expected '${depth > 0 ? ')' : '('}' to close the type`);
    return parts
      .join(' ')
      .replace(/ \( /g, '(')
      .replace(/ \)/g, ')')
      .replace(/ , /g, ', ')
      .replace(/ < /g, '<')
      .replace(/ >/g, '>');
  }
}
