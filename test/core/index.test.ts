import { describe, it, expect } from 'vitest';
import * as core from '../../shared/core/index.ts';

describe('core index', () => {
  it('re-exports the core modules', () => {
    for (const name of [
      'ROW_KINDS',
      'insertRecord',
      'FlambdaError',
      'PlanError',
      'RecordError',
      'TransientError',
      'parseType',
      'formatType',
      'schemaOf',
      'schemaFromFields',
      'fieldIndex',
      'requireField',
      'findField',
      'parseTimestamp',
      'formatTimestamp',
      'parseDecimal',
      'tryParseDecimal',
      'formatDecimal',
      'rescaleDecimal',
      'divideDecimal',
      'createRowDecoder',
      'createRowEncoder',
      'decodeJsonLine',
      'encodeRowToJson',
    ]) {
      expect(core, name).toHaveProperty(name);
    }
  });
});
