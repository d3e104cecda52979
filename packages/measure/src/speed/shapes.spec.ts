import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as ts from 'typescript';

const SRC = join(__dirname, '..');

/**
 * The classes a run builds before its warm-up (BenchmarkRun's constructor and its pool), whose objects
 * the code V8 compiles on the rehearsals' objects then meets in the measured window. Their shapes must
 * already be final when they are built (README.md beside this file: object arrays, double-born fields).
 */
const BUILT_BEFORE_WARM_UP = [
  'BenchmarkRun',
  'ArrivalInbox',
  'SendPacer',
  'LagHistogram',
  'ScratchShelf',
  'TimingSlab',
  'ConnectBackoff',
  'Http1Pool',
  'Connection',
];

/** Array fields of those classes that stay small integers for good, so V8's first elements kind is their last. */
const SMALL_INTEGER_ARRAYS = new Set(['ArrivalInbox.kinds']);

/** A time field by its unit (ns, ms, us, s): the measuring loop writes readings of a clock to it, doubles. */
const TIME_FIELD = /(Ns|Ms|Us|S)$/;
/** Double fields whose name has no unit. */
const OTHER_DOUBLE_FIELDS = new Set(['LagHistogram.largest']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'test-support' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

interface Field {
  place: string;
  /** Class.field */
  name: string;
  initializer: ts.Expression;
}

function parse(path: string): ts.SourceFile {
  return ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2022, true);
}

/** Every class field with an initializer, in the package's sources. */
function initializedFields(): Field[] {
  return sourceFiles(SRC).flatMap((path) => {
    const file = parse(path);
    const fields: Field[] = [];
    const visit = (node: ts.Node) => {
      if (ts.isClassDeclaration(node) && node.name) {
        for (const member of node.members) {
          if (!ts.isPropertyDeclaration(member) || !member.initializer || !ts.isIdentifier(member.name))
            continue;
          const { line } = file.getLineAndCharacterOfPosition(member.getStart());
          fields.push({
            place: `${relative(SRC, path)}:${line + 1}`,
            name: `${node.name.text}.${member.name.text}`,
            initializer: resolveConstant(file, member.initializer),
          });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
    return fields;
  });
}

/** A module constant's own initializer (`private turnEndsMs = NO_TURN`), else the expression itself. */
function resolveConstant(file: ts.SourceFile, expression: ts.Expression): ts.Expression {
  if (!ts.isIdentifier(expression)) return expression;
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (
        ts.isIdentifier(declaration.name) &&
        declaration.name.text === expression.text &&
        declaration.initializer
      )
        return declaration.initializer;
    }
  }
  return expression;
}

function isIntegerLiteral(expression: ts.Expression): boolean {
  const literal =
    ts.isPrefixUnaryExpression(expression) && expression.operator === ts.SyntaxKind.MinusToken
      ? expression.operand
      : expression;
  return ts.isNumericLiteral(literal) && Number.isInteger(Number(literal.text.replace(/_/g, '')));
}

const builtBeforeWarmUp = (field: Field) => BUILT_BEFORE_WARM_UP.includes(field.name.split('.')[0]);

describe('the shapes the measured window depends on (speed/README.md)', () => {
  const fields = initializedFields();

  it('knows every class it guards (a renamed class must be renamed here too)', () => {
    const classes = new Set(fields.map((field) => field.name.split('.')[0]));
    expect(BUILT_BEFORE_WARM_UP.filter((name) => !classes.has(name))).toEqual([]);
  });

  it('makes the array fields of what a run builds before its warm-up with objectArray(), not []', () => {
    const plain = fields.filter(
      (field) =>
        builtBeforeWarmUp(field) &&
        ts.isArrayLiteralExpression(field.initializer) &&
        field.initializer.elements.length === 0 &&
        !SMALL_INTEGER_ARRAYS.has(field.name),
    );
    expect(plain.map((field) => `${field.place} ${field.name}`)).toEqual([]);
  });

  it('gives the time fields of what a run builds before its warm-up a double at birth, not an integer', () => {
    const smallIntegers = fields.filter(
      (field) =>
        builtBeforeWarmUp(field) &&
        (TIME_FIELD.test(field.name.split('.')[1]) || OTHER_DOUBLE_FIELDS.has(field.name)) &&
        isIntegerLiteral(field.initializer),
    );
    expect(smallIntegers.map((field) => `${field.place} ${field.name}`)).toEqual([]);
  });

  it('sets no V8 flag from library code (entry points set MEASURING_PROCESS_FLAGS for their process)', () => {
    const calls = sourceFiles(SRC).filter((path) =>
      /\bsetFlagsFromString\s*\(/.test(readFileSync(path, 'utf8')),
    );
    expect(calls.map((path) => relative(SRC, path))).toEqual([]);
  });
});
