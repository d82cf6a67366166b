/** Tokenizer, parser, the dt-sql-parser pre-pass and the grammar check. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkGrammar, flinkGrammar } from '../../shared/sql/grammar-check.ts';
import { tokenize } from '../../shared/sql/lexer.ts';
import { parseSql } from '../../shared/sql/parser.ts';
import { maskForGrammar } from '../../shared/sql/prepass.ts';
import { ORDERS, example, sqlError } from './helpers.ts';

describe('pre-pass for dt-sql-parser', () => {
  it('rewrites the SESSION TVF and blanks FILTER, keeping offsets and lines', () => {
    const text = "SELECT count(*) FILTER (WHERE price < 10) AS c\nFROM TABLE(SESSION(TABLE bid PARTITION BY bidder, DESCRIPTOR(date_time), INTERVAL '10' SECOND))";
    // The grammar itself rejects both constructs; the pre-pass is what lets the check pass.
    expect(flinkGrammar().validate(text).length).toBeGreaterThan(0);
    const masked = maskForGrammar(text);
    expect(masked.length).toBe(text.length);
    expect(masked.split('\n').length).toBe(2);
    expect(masked).not.toContain('FILTER');
    expect(masked).toContain('TUMBLE (TABLE bid');
    expect(masked).not.toContain('PARTITION');
    expect(() => checkGrammar(text)).not.toThrow();
  });

  it('handles several FILTER clauses, multi-column PARTITION BY and multi-line clauses', () => {
    const text = `SELECT a, count(*) FILTER (WHERE (x > 1) AND
      y < 2), sum(b) FILTER (WHERE b IN (1, 2))
    FROM TABLE(SESSION(TABLE t PARTITION BY (a, c),
      DESCRIPTOR(ts), INTERVAL '5' MINUTE)) GROUP BY a, window_start, window_end`;
    const masked = maskForGrammar(text);
    expect(masked.length).toBe(text.length);
    expect(masked.split('\n').map((l) => l.length)).toEqual(text.split('\n').map((l) => l.length));
    expect(() => checkGrammar(text)).not.toThrow();
    expect(parseSql(text)).toHaveLength(1);
  });

  it('leaves FILTER and SESSION alone where they are not the constructs', () => {
    for (const text of ["SELECT a FROM t WHERE s = 'FILTER (WHERE x)'", 'SELECT `FILTER` FROM t', "SELECT a FROM t GROUP BY SESSION(ts, INTERVAL '1' MINUTE)"]) {
      expect(maskForGrammar(text)).toBe(text);
    }
  });

  it('keeps every non-masked character in place (property)', () => {
    const pieces = fc.constantFrom('SELECT ', 'count(*) ', 'FILTER (WHERE a > 1) ', ', ', '\n', 'x ', "'FILTER' ", 'FROM t ', '-- c\n');
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 30 }), (parts) => {
        const text = parts.join('');
        const masked = maskForGrammar(text);
        expect(masked.length).toBe(text.length);
        for (let i = 0; i < text.length; i++) {
          if (masked[i] !== text[i]) expect(masked[i]).toBe(' ');
          if (text[i] === '\n') expect(masked[i]).toBe('\n');
        }
      }),
    );
  });

  it('reports grammar errors with line and column', () => {
    const e = sqlError(() => checkGrammar('SELECT a\nFROM t WHERE'));
    expect(e.line).toBe(2);
    expect(e.message).toMatch(/^line 2:\d+: syntax error/);
  });
});

describe('tokenizer', () => {
  it('keeps positions, quoted names, doubled quotes and hints', () => {
    const tokens = tokenize("SELECT /*+ LOOKUP('table'='t') */ `day`,\n  'it''s' -- note\nFROM t");
    expect(tokens.map((t) => t.kind)).toEqual(['ident', 'hint', 'qident', 'op', 'string', 'ident', 'ident', 'eof']);
    expect(tokens[4]).toMatchObject({ text: "it's", line: 2, column: 3 });
    expect(tokens[5]).toMatchObject({ upper: 'FROM', line: 3, column: 1 });
  });

  it('points at unterminated strings', () => {
    expect(sqlError(() => tokenize("SELECT 'abc")).message).toBe('line 1:8: unterminated string literal');
  });
});

describe('parser', () => {
  it('parses every statement kind', () => {
    const stmts = parseSql(`${ORDERS}
      CREATE VIEW v AS SELECT merchandiseId, quantity FROM orders WHERE quantity > 1;
      SET 'table.exec.topn.cache-size' = '100';
      INSERT INTO out SELECT * FROM v;
      SELECT CASE WHEN a BETWEEN 1 AND 2 THEN 'x' ELSE 'y' END, CAST(b AS BIGINT), SUBSTRING(c FROM 1 FOR 2) FROM t WHERE d IN (1, 2) AND e LIKE 'a%' AND f IS NOT NULL;`);
    expect(stmts.map((s) => s.k)).toEqual(['createTable', 'createView', 'set', 'insert', 'select']);
    const table = stmts[0];
    expect(table?.k === 'createTable' && table.watermark?.column).toBe('log_ts');
    expect(table?.k === 'createTable' && table.options.get('connector')?.value).toBe('filesystem');
  });

  it('parses computed columns, PROCTIME, metadata and primary keys', () => {
    const [t] = parseSql("CREATE TABLE t (a INT, b AS a * 2, pt AS PROCTIME(), m STRING METADATA FROM 'k' VIRTUAL, PRIMARY KEY (a) NOT ENFORCED) WITH ('connector' = 'print')");
    expect(t?.k === 'createTable' && t.columns.map((c) => [c.name, c.type ?? (c.computed?.k as string)])).toEqual([
      ['a', 'INT'],
      ['b', 'bin'],
      ['pt', 'call'],
      ['m', 'STRING'],
    ]);
    expect(t?.k === 'createTable' && t.primaryKey).toEqual(['a']);
  });

  it('parses the SESSION TVF with PARTITION BY and aggregate FILTER natively', () => {
    const [s] = parseSql("SELECT bidder, count(*) FILTER (WHERE price > 1) FROM TABLE(SESSION(TABLE bid PARTITION BY bidder, DESCRIPTOR(date_time), INTERVAL '10' SECOND)) GROUP BY bidder");
    expect(s?.k).toBe('select');
    if (s?.k !== 'select' || s.query.k !== 'select') return;
    expect(s.query.from.k === 'tvf' && s.query.from.partitionBy.map((p) => p.name)).toEqual(['bidder']);
    const item = s.query.items[1]?.expr;
    expect(item?.k === 'call' && item.filter?.k).toBe('bin');
  });

  it('parses the seed scripts and the Nexmark scripts verbatim', () => {
    for (const f of ['top-n.sql', 'lookup-join.sql', 'top-merchandise.sql', 'q5.sql', 'q7.sql', 'q11.sql', 'q13.sql', 'q15.sql', 'q18.sql', 'q19.sql']) {
      expect(() => checkGrammar(example(f)), f).not.toThrow();
      expect(parseSql(example(f)).length, f).toBeGreaterThan(1);
    }
  });

  it('points syntax errors at the token', () => {
    expect(sqlError(() => parseSql('SELECT a\nFROM t WHERE a = = 1')).message).toBe("line 2:18: expected an expression, found '='");
    expect(sqlError(() => parseSql('SELECT a FROM t ORDER BY a LIMIT')).message).toBe('line 1:33: expected an expression, found end of input');
    expect(sqlError(() => parseSql("SELECT * FROM TABLE(TUMBLE(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '1' SECOND))")).message).toMatch(
      /TUMBLE takes no PARTITION BY/,
    );
  });
});
