/**
 * The Flink SQL front end: dt-sql-parser's Flink SQL grammar parses the script (after the
 * pre-pass in prepass.ts) and tree-to-ast.ts builds the syntax tree from its parse tree. Syntax
 * errors are the grammar's, so scripts are held to Flink's syntax.
 *
 * Statements whose parse tree holds a construct tree-to-ast.ts does not convert are read by the
 * hand-written parser.ts instead (it also reports the subset's own errors, e.g. ORDER BY in a
 * streaming query). The parser instance is created once and shared: building it takes about two
 * seconds.
 */
// The Flink dialect only: the package index loads every dialect (~20 MB of generated parsers),
// which costs about ten seconds per test file; the Flink parser alone is 1.6 MB.
import type { ParserRuleContext, TokenStream } from 'antlr4ng';
import { FlinkSQL } from 'dt-sql-parser/dist/parser/flink/index.js';
import type { SqlExpr, SqlStatement } from './ast.ts';
import { SqlError } from './errors.ts';
import type { Token } from './lexer.ts';
import { parseSql } from './parser.ts';
import { maskForGrammar } from './prepass.ts';
import { TreeToAst, TreeUnsupported, shiftPositions } from './tree-to-ast.ts';

let shared: FlinkSQL | undefined;

/** The process-wide dt-sql-parser instance. */
export function flinkGrammar(): FlinkSQL {
  shared ??= new FlinkSQL();
  return shared;
}

/**
 * Throws the grammar's first syntax error as a SqlError (`line 2:8: …`).
 *
 * @throws SqlError for the first syntax error.
 */
export function checkGrammar(text: string): void {
  const errors = flinkGrammar().validate(maskForGrammar(text));
  const first = errors[0];
  if (first) {
    throw new SqlError({ line: first.startLine, column: first.startColumn }, `syntax error: ${first.message}`);
  }
}

/** How a script was read: statement indexes that came from the grammar's tree or parser.ts. */
export interface FrontEndReport {
  readonly fromTree: readonly number[];
  /** Statement index → why the tree walker left it to parser.ts. */
  readonly fallbacks: ReadonlyMap<number, string>;
}

let lastReport: FrontEndReport = { fromTree: [], fallbacks: new Map() };

/** How the last `parseScript` call read its statements (for tests and diagnostics). */
export function lastFrontEndReport(): FrontEndReport {
  return lastReport;
}

/** The cached parse of dt-sql-parser's `validate` (private fields of BasicSQL, version 4.x). */
interface ParseCache {
  _parsedInput?: string;
  _parseTree?: ParserRuleContext | null;
  _tokenStream?: TokenStream;
}

function parseTree(masked: string): { tree: ParserRuleContext; tokens: TokenStream } {
  const cache = flinkGrammar() as unknown as ParseCache;
  if (cache._parsedInput === masked && cache._parseTree && cache._tokenStream) return { tree: cache._parseTree, tokens: cache._tokenStream };
  const parser = flinkGrammar().createParser(masked);
  parser.removeErrorListeners();
  return { tree: parser.program(), tokens: parser.tokenStream };
}

/**
 * Parses a script into statements: grammar check, then the grammar's parse tree converted by
 * tree-to-ast.ts, with parser.ts for the statements the converter leaves.
 *
 * @throws SqlError for syntax errors (the grammar's first) and the subset's parse errors.
 */
export function parseScript(text: string, options: { readonly grammarCheck?: boolean } = {}): SqlStatement[] {
  const masked = maskForGrammar(text);
  const errors = flinkGrammar().validate(masked);
  const first = errors[0];
  if (first && options.grammarCheck !== false) {
    throw new SqlError({ line: first.startLine, column: first.startColumn }, `syntax error: ${first.message}`);
  }
  // Astral characters: ANTLR columns count code points, parser.ts UTF-16 units.
  if (first || /[\uD800-\uDFFF]/.test(text)) {
    const all = parseSql(text);
    lastReport = { fromTree: [], fallbacks: new Map(all.map((_, k) => [k, first ? 'syntax error' : 'astral characters'])) };
    return all;
  }
  const { tree, tokens } = parseTree(masked);
  const singles = (tree.children ?? []).filter((c): c is ParserRuleContext => 'ruleIndex' in c && c.getChildCount() > 0 && c.getText() !== '<EOF>');
  let conv: TreeToAst;
  try {
    conv = new TreeToAst(text, tokens, (cond) => readFilter(text, cond), readWhere);
  } catch (e) {
    if (!(e instanceof TreeUnsupported)) throw e;
    const all = parseSql(text);
    lastReport = { fromTree: [], fallbacks: new Map(all.map((_, k) => [k, e.message])) };
    return all;
  }
  const out: (SqlStatement | undefined)[] = [];
  const fallbacks = new Map<number, string>();
  for (const single of singles) {
    try {
      const stmt = conv.statement(single);
      if (stmt) out.push(stmt);
    } catch (e) {
      if (!(e instanceof TreeUnsupported)) throw e;
      fallbacks.set(out.length, e.message);
      out.push(undefined);
    }
  }
  if (fallbacks.size > 0) {
    lastReport = { fromTree: [], fallbacks };
    const hand = parseSql(text);
    if (hand.length !== out.length) {
      lastReport = { fromTree: [], fallbacks: new Map(hand.map((_, k) => [k, 'statement count differs'])) };
      return hand;
    }
    for (const k of fallbacks.keys()) out[k] = hand[k];
  }
  lastReport = { fromTree: out.map((_, k) => k).filter((k) => !fallbacks.has(k)), fallbacks };
  return out as SqlStatement[];
}

/**
 * The condition of an aggregate `FILTER (WHERE cond)` — blanked by the pre-pass, so the grammar
 * never saw it — parsed by the grammar on its own as the WHERE condition of a probe statement,
 * with its positions moved back to the script's.
 */
function readFilter(text: string, cond: readonly Token[]): SqlExpr {
  const firstTok = cond[0];
  const lastTok = cond[cond.length - 1];
  if (!firstTok || !lastTok) throw new TreeUnsupported('empty FILTER');
  const item = text.slice(firstTok.offset, lastTok.end);
  if (/FILTER|SESSION|\/\*\+/i.test(item)) throw new TreeUnsupported('nested masked construct in FILTER');
  const prefix = 'SELECT 1 FROM t WHERE ';
  const expr = readWhere(prefix + item);
  return shiftPositions(expr, (p) =>
    p.line === 1 ? { line: firstTok.line, column: p.column - prefix.length + firstTok.column - 1 } : { line: p.line + firstTok.line - 1, column: p.column },
  );
}

/** Parses `SELECT 1 FROM t WHERE cond` with the grammar and returns cond. */
function readWhere(probe: string): SqlExpr {
  const { program, tokens } = parseProbe(probe);
  const single = (program.children ?? []).find((c): c is ParserRuleContext => 'ruleIndex' in c && c.getChildCount() > 0);
  if (!single) throw new TreeUnsupported('reparse');
  return new TreeToAst(probe, tokens, () => {
    throw new TreeUnsupported('nested FILTER');
  }).whereOf(single);
}

function parseProbe(probe: string): { program: ParserRuleContext; tokens: TokenStream } {
  const parser = flinkGrammar().createParser(probe);
  parser.removeErrorListeners();
  let failed = false;
  parser.addErrorListener({
    syntaxError: () => {
      failed = true;
    },
    reportAmbiguity: () => undefined,
    reportAttemptingFullContext: () => undefined,
    reportContextSensitivity: () => undefined,
  });
  const program = parser.program();
  if (failed) throw new TreeUnsupported('probe does not parse');
  return { program, tokens: parser.tokenStream };
}
