#!/usr/bin/env node
/**
 * Checks that the dashboard's visible text goes through the catalogues:
 * - no literal prose in component templates (text, visible attributes, strings in interpolations);
 * - every key the code names exists, and every catalogue key is used;
 * - every language has the same keys, with non-empty, valid ICU messages and the same arguments.
 *
 * Usage: node scripts/check-i18n.mjs [source dir] [catalogue dir]. Exit 1 with one line per problem.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

import {
  BindingPipe,
  LiteralPrimitive,
  RecursiveAstVisitor,
  TmplAstRecursiveVisitor,
  parseTemplate,
  tmplAstVisitAll,
} from '@angular/compiler';
import { parse as parseMessage } from '@formatjs/icu-messageformat-parser';

const root = resolve(import.meta.dirname, '..');
const sourceDir = resolve(process.argv[2] ?? join(root, 'frontend/src/app'));
const catalogueDir = resolve(process.argv[3] ?? join(root, 'frontend/src/i18n'));
const problems = [];

/** Attributes people read or hear; their static values must come from a catalogue. */
const VISIBLE_ATTRIBUTE =
  /^(aria-(label|description|roledescription|valuetext|placeholder)|title|placeholder|alt|label|heading|message|hint|description|legend|caption|summary|(.*(Label|Text|Title|Heading|Message|Hint)))$/;
/** Date pipe formats such as 'yyyy-MM-dd HH:mm:ss' are not prose. */
const DATE_FORMAT = /^[yMdEHhmsaSZ:\-./, ]+$/;
const PROSE_TEXT = /\p{L}{2,}/u;

function isProse(value) {
  return (
    typeof value === 'string' &&
    /\p{L}/u.test(value) &&
    (/\s/.test(value) || /^\p{Lu}\p{Ll}/u.test(value)) &&
    !DATE_FORMAT.test(value)
  );
}

function filesUnder(dir, suffixes) {
  const found = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...filesUnder(path, suffixes));
    else if (suffixes.some((suffix) => name.endsWith(suffix)) && !name.endsWith('.spec.ts')) found.push(path);
  }
  return found.sort();
}

// ---- catalogues -------------------------------------------------------------------------------

function flatten(value, prefix, into) {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    for (const [key, inner] of Object.entries(value)) flatten(inner, prefix ? `${prefix}.${key}` : key, into);
  } else {
    into.set(prefix, value);
  }
  return into;
}

function messageArguments(elements, into = new Set()) {
  for (const element of elements) {
    // Types 1–6 carry an argument name (argument, number, date, time, select, plural).
    if (element.type >= 1 && element.type <= 6) into.add(element.value);
    if (element.options)
      for (const option of Object.values(element.options)) messageArguments(option.value, into);
    if (element.children) messageArguments(element.children, into);
  }
  return into;
}

const languages = readdirSync(catalogueDir).filter((name) =>
  statSync(join(catalogueDir, name)).isDirectory(),
);
const catalogues = new Map();
for (const language of languages) {
  const entries = new Map();
  for (const file of filesUnder(join(catalogueDir, language), ['.json'])) {
    const area = relative(join(catalogueDir, language), file).replace(/\.json$/, '');
    flatten(JSON.parse(readFileSync(file, 'utf8')), area, entries);
  }
  catalogues.set(language, entries);
}
const english = catalogues.get('en') ?? new Map();
for (const [language, entries] of catalogues) {
  for (const [key, value] of entries) {
    if (typeof value !== 'string' || value.trim() === '') {
      problems.push(`${language}: ${key} is not a non-empty text`);
      continue;
    }
    let args;
    try {
      args = [...messageArguments(parseMessage(value))].sort().join(',');
    } catch (error) {
      problems.push(`${language}: ${key} is not a valid ICU message (${error.message})`);
      continue;
    }
    if (language === 'en') continue;
    if (!english.has(key)) problems.push(`${language}: ${key} is not in the English catalogue`);
    else {
      const englishArgs = [...messageArguments(parseMessage(String(english.get(key))))].sort().join(',');
      if (englishArgs !== args)
        problems.push(`${language}: ${key} has arguments {${args}}, English has {${englishArgs}}`);
    }
  }
  if (language !== 'en') {
    for (const key of english.keys()) if (!entries.has(key)) problems.push(`${language}: ${key} is missing`);
  }
}

// ---- templates --------------------------------------------------------------------------------

class ProseInExpression extends RecursiveAstVisitor {
  found = [];
  visitLiteralPrimitive(ast) {
    if (isProse(ast.value)) this.found.push(ast.value);
  }
  visitPipe(ast, context) {
    // The arguments of the date pipe are formats; everything else is visited.
    ast.exp.visit(this, context);
    if (ast.name !== 'date') for (const arg of ast.args) arg.visit(this, context);
  }
}

function proseIn(expression) {
  const visitor = new ProseInExpression();
  (expression.ast ?? expression).visit(visitor);
  return visitor.found;
}

class TemplateChecker extends TmplAstRecursiveVisitor {
  constructor(where) {
    super();
    this.where = where;
  }
  report(what) {
    problems.push(`${this.where}: ${what}`);
  }
  visitText(text) {
    if (PROSE_TEXT.test(text.value)) this.report(`literal text "${text.value.trim()}"`);
  }
  visitBoundText(text) {
    for (const value of proseIn(text.value)) this.report(`literal text '${value}' in an interpolation`);
  }
  visitTextAttribute(attribute) {
    if (VISIBLE_ATTRIBUTE.test(attribute.name) && PROSE_TEXT.test(attribute.value)) {
      this.report(`literal ${attribute.name}="${attribute.value}"`);
    }
  }
  visitBoundAttribute(attribute) {
    if (VISIBLE_ATTRIBUTE.test(attribute.name)) {
      for (const value of proseIn(attribute.value))
        this.report(`literal '${value}' bound to ${attribute.name}`);
    }
  }
}

function checkTemplate(template, where) {
  const parsed = parseTemplate(template, where, { preserveWhitespaces: false });
  for (const error of parsed.errors ?? []) problems.push(`${where}: template does not parse (${error.msg})`);
  tmplAstVisitAll(new TemplateChecker(where), parsed.nodes);
}

// ---- sources: templates and the keys they name ------------------------------------------------

const areas = new Set([...english.keys()].map((key) => key.split('.', 1)[0]));
const used = new Set();
const prefixes = new Set();
const sources = filesUnder(sourceDir, ['.ts', '.html']);
for (const file of sources) {
  const text = readFileSync(file, 'utf8');
  const where = relative(resolve(sourceDir, '..'), file);
  if (file.endsWith('.html')) checkTemplate(text, where);
  else for (const match of text.matchAll(/\btemplate:\s*`([^`]*)`/g)) checkTemplate(match[1], where);

  for (const match of text.matchAll(/'([a-zA-Z]+(?:\.[a-zA-Z0-9]+)+)'/g)) {
    if (areas.has(match[1].split('.', 1)[0])) used.add(match[1]);
  }
  for (const match of text.matchAll(/`([a-zA-Z]+(?:\.[a-zA-Z0-9]+)*\.)\$\{/g)) {
    if (areas.has(match[1].split('.', 1)[0])) prefixes.add(match[1]);
  }
  for (const match of text.matchAll(/'([a-zA-Z]+(?:\.[a-zA-Z0-9]+)*\.)'\s*\+/g)) {
    if (areas.has(match[1].split('.', 1)[0])) prefixes.add(match[1]);
  }
}
for (const key of used) {
  if (!english.has(key) && ![...english.keys()].some((known) => known.startsWith(`${key}.`))) {
    problems.push(`code names ${key}, which is not in the English catalogue`);
  }
}
for (const prefix of prefixes) {
  if (![...english.keys()].some((key) => key.startsWith(prefix)))
    problems.push(`code names keys under ${prefix}, there are none`);
}
for (const key of english.keys()) {
  if (!used.has(key) && ![...prefixes].some((prefix) => key.startsWith(prefix)))
    problems.push(`en: ${key} is never used`);
}

for (const problem of problems) console.log(problem);
console.log(
  `i18n: ${english.size} keys in ${languages.length} languages, ${sources.length} source files, ${problems.length} problems`,
);
process.exitCode = problems.length > 0 ? 1 : 0;
