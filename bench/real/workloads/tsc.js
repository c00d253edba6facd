// tsc.js — a large program: the TypeScript compiler (typescript's own lib/typescript.js, 9 MB, a
// few thousand hot functions) type-checks and emits a generated project of 20 modules (TSC_FILES) that import
// each other (interfaces, generics, mapped types, classes). One unit = one full compile: parse,
// bind, check, emit of every project file, on a fresh program each time (lib .d.ts files parsed once).
'use strict';
const ts = require('typescript');
const { run } = require('../lib/harness');
const { typescriptProject } = require('../lib/gen');

const FILES = Number(process.env.TSC_FILES || 20);
const project = typescriptProject(FILES);
const options = { target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.CommonJS, strict: true, declaration: true, skipLibCheck: true, lib: ['lib.es2020.d.ts'] };
const libCache = new Map();
const realHost = ts.createCompilerHost(options);
let emitted = 0;

function host() {
  return {
    ...realHost,
    fileExists: (f) => project.has(f) || realHost.fileExists(f),
    directoryExists: (d) => d === '/project' || realHost.directoryExists(d),
    getCurrentDirectory: () => '/project',
    readFile: (f) => project.get(f) ?? realHost.readFile(f),
    getSourceFile(f, lang) {
      if (project.has(f)) return ts.createSourceFile(f, project.get(f), lang, true);
      if (!libCache.has(f)) libCache.set(f, realHost.getSourceFile(f, lang));
      return libCache.get(f);
    },
    writeFile: (f, text) => { emitted += text.length; },
  };
}

function check(diagnostics) {
  if (!diagnostics.length) return;
  const d = diagnostics[0];
  throw new Error(`the generated project does not compile: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')} (${d.file && d.file.fileName})`);
}

// work counted per file checked and per file emitted
const h = run({
  name: 'tsc', unit: 'compiles', fine: true,
  iterate() {
    const program = ts.createProgram([...project.keys()], options, host());
    check(program.getSyntacticDiagnostics());
    check(program.getGlobalDiagnostics());
    const files = program.getSourceFiles().filter((f) => project.has(f.fileName));
    for (const f of files) { check(program.getSemanticDiagnostics(f)); h.step(); }
    for (const f of files) { program.emit(f); h.step(); }
  },
});
