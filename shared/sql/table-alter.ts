/**
 * `ALTER TABLE t ADD | MODIFY | DROP | RENAME col TO | SET | RESET` on a table's definition,
 * with Flink's rules and messages (its AlterSchemaConverter): ADD takes only new columns and a
 * primary key or watermark the table does not have yet, MODIFY only existing ones; a column at
 * `FIRST` / `AFTER c`, else last (ADD) or in place (MODIFY); DROP refuses a column a primary
 * key, partition, computed column or watermark uses; RENAME refuses one a computed column or
 * the watermark reads. The catalog compiles the new definition, so a table that no longer
 * reads (a watermark on a dropped column's type …) fails as a CREATE TABLE would.
 */
import type { SqlAlterTableAction, SqlColumn, SqlExpr, SqlSchemaComponent } from './ast.ts';
import { SqlError, type SqlPosition } from './errors.ts';
import { sqlChildren } from './sql-expr-walk.ts';
import { unparseExpr } from './sql-unparse.ts';
import type { TableDefinition } from './table-definition.ts';
import { defaultConstraintName } from './catalog-output.ts';

/** The column names an expression reads. */
function columnsRead(e: SqlExpr, out = new Set<string>()): Set<string> {
  if (e.k === 'id' && e.parts[0] !== undefined) out.add(e.parts[0]);
  for (const child of sqlChildren(e)) columnsRead(child, out);
  return out;
}

/** The definition after an ALTER TABLE action other than RENAME TO. */
export function alterDefinition(def: TableDefinition, action: Exclude<SqlAlterTableAction, { k: 'renameTable' }>, at: SqlPosition): TableDefinition {
  const fail = (message: string, pos: SqlPosition = at): never => {
    throw new SqlError(pos, message);
  };
  const hasColumn = (name: string): boolean => def.columns.some((c) => c.name === name);
  switch (action.k) {
    case 'setOptions': {
      const options = new Map(def.options);
      for (const [k, v] of action.options) options.set(k, v);
      return { ...def, options };
    }
    case 'resetOptions': {
      const options = new Map(def.options);
      for (const k of action.keys) {
        if (k.value.toLowerCase() === 'connector') fail("ALTER TABLE RESET does not support changing 'connector'", k.pos);
        options.delete(k.value);
      }
      return { ...def, options };
    }
    case 'add':
    case 'modify':
      return applyComponents(def, action.k, action.components, fail);
    case 'dropColumns': {
      let columns = [...def.columns];
      for (const c of action.columns) {
        if (!columns.some((x) => x.name === c.name)) fail(`The column \`${c.name}\` does not exist in the base table.`, c.pos);
        if (def.primaryKey?.columns.includes(c.name)) fail(`The column \`${c.name}\` is used as the primary key.`, c.pos);
        if (def.partitionedBy?.includes(c.name)) fail(`The column \`${c.name}\` is used as the partition keys.`, c.pos);
        if (def.watermark && (def.watermark.column === c.name || columnsRead(def.watermark.expr).has(c.name))) {
          fail(`The column \`${c.name}\` is referenced by watermark expression \`${def.watermark.column}\` AS ${unparseExpr(def.watermark.expr)}.`, c.pos);
        }
        columns = columns.filter((x) => x.name !== c.name);
      }
      const dropped = new Set(action.columns.map((c) => c.name));
      for (const col of columns) {
        const used = col.computed ? [...columnsRead(col.computed)].find((n) => dropped.has(n)) : undefined;
        if (used !== undefined) fail(`The column \`${used}\` is referenced by computed column \`${col.name}\` AS ${unparseExpr(col.computed as SqlExpr)}.`);
      }
      return { ...def, columns };
    }
    case 'dropPrimaryKey': {
      if (!def.primaryKey) fail('The base table does not define any primary key.');
      const { primaryKey: _dropped, ...rest } = def;
      return rest;
    }
    case 'dropConstraint': {
      const name = def.primaryKey ? (def.primaryKey.name ?? defaultConstraintName(def.primaryKey.columns)) : undefined;
      if (name !== action.name.name) {
        fail(`The base table does not define a primary key constraint named \`${action.name.name}\`. Available constraint name: [${name === undefined ? '' : `\`${name}\``}].`, action.name.pos);
      }
      const { primaryKey: _dropped, ...rest } = def;
      return rest;
    }
    case 'dropWatermark': {
      if (!def.watermark) fail('The base table does not define any watermark strategy.');
      const { watermark: _dropped, ...rest } = def;
      return rest;
    }
    case 'renameColumn': {
      const { from, to } = action;
      if (!hasColumn(from.name)) fail(`The column \`${from.name}\` does not exist in the base table.`, from.pos);
      if (hasColumn(to.name)) fail(`The column \`${to.name}\` already existed in table schema.`, to.pos);
      for (const c of def.columns) {
        if (c.computed && columnsRead(c.computed).has(from.name)) {
          fail(`Old column ${from.name} is referred by computed column \`${c.name}\` AS ${unparseExpr(c.computed)}, currently doesn't allow to rename column which is referred by computed column.`, from.pos);
        }
      }
      if (def.watermark && columnsRead(def.watermark.expr).has(from.name)) {
        fail(`Old column ${from.name} is referred by watermark expression \`${def.watermark.column}\` AS ${unparseExpr(def.watermark.expr)}, currently doesn't allow to rename column which is referred by watermark expression.`, from.pos);
      }
      const rename = (n: string): string => (n === from.name ? to.name : n);
      return {
        ...def,
        columns: def.columns.map((c) => (c.name === from.name ? { ...c, name: to.name } : c)),
        // (A watermark reading the column was refused above; its column may still be renamed.)
        ...(def.watermark ? { watermark: { ...def.watermark, column: rename(def.watermark.column) } } : {}),
        ...(def.primaryKey ? { primaryKey: { ...def.primaryKey, columns: def.primaryKey.columns.map(rename) } } : {}),
        ...(def.partitionedBy ? { partitionedBy: def.partitionedBy.map(rename) } : {}),
      };
    }
  }
}

/** ADD or MODIFY of columns, a primary key and a watermark, in the order written. */
function applyComponents(def: TableDefinition, change: 'add' | 'modify', components: readonly SqlSchemaComponent[], fail: (message: string, pos?: SqlPosition) => never): TableDefinition {
  let columns: SqlColumn[] = [...def.columns];
  let primaryKey = def.primaryKey;
  let watermark = def.watermark;
  for (const component of components) {
    switch (component.k) {
      case 'column': {
        const c = component.column;
        const index = columns.findIndex((x) => x.name === c.name);
        if (change === 'add' && index >= 0) fail(`Try to add a column \`${c.name}\` which already exists in the table.`, c.pos);
        if (change === 'modify' && index < 0) fail(`Try to modify a column \`${c.name}\` which does not exist in the table.`, c.pos);
        if (c.primaryKey) {
          if (change === 'add' && primaryKey) fail(primaryKeyExists(primaryKey.columns), c.pos);
          primaryKey = { columns: [c.name] };
        }
        const position = component.position;
        if (position === undefined && index >= 0) {
          columns[index] = c;
          break;
        }
        columns = columns.filter((x) => x.name !== c.name);
        if (position === undefined) columns.push(c);
        else if ('first' in position) columns.unshift(c);
        else {
          const after = columns.findIndex((x) => x.name === position.after.name);
          if (after < 0) fail(`Referenced column \`${position.after.name}\` by 'AFTER' does not exist in the table.`, position.after.pos);
          columns.splice(after + 1, 0, c);
        }
        break;
      }
      case 'primaryKey':
        if (change === 'add' && primaryKey) fail(primaryKeyExists(primaryKey.columns), component.pos);
        if (change === 'modify' && !primaryKey) fail('The base table does not define any primary key constraint. You might want to add a new one.', component.pos);
        primaryKey = { columns: component.columns.map((c) => c.name), ...(component.constraintName !== undefined ? { name: component.constraintName } : {}) };
        break;
      case 'watermark':
        if (change === 'add' && watermark) {
          fail(`The base table has already defined the watermark strategy \`${watermark.column}\` AS ${unparseExpr(watermark.expr)}. You might want to drop it before adding a new one.`, component.pos);
        }
        if (change === 'modify' && !watermark) fail('The base table does not define any watermark. You might want to add a new one.', component.pos);
        watermark = { column: component.column, expr: component.expr, pos: component.pos };
        break;
    }
  }
  for (const k of primaryKey?.columns ?? []) {
    if (!columns.some((c) => c.name === k)) fail(`Invalid primary key. Column \`${k}\` does not exist in the table.`);
  }
  const { primaryKey: _pk, watermark: _wm, ...rest } = def;
  return { ...rest, columns, ...(primaryKey ? { primaryKey } : {}), ...(watermark ? { watermark } : {}) };
}

function primaryKeyExists(columns: readonly string[]): string {
  return `The base table has already defined the primary key constraint [${columns.map((c) => `\`${c}\``).join(', ')}]. You might want to drop it before adding a new one.`;
}
