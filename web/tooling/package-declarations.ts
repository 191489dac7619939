// The package's two descriptions of its API, generated from the code by the embed build so they never
// drift from it: the bundled type declarations (attention-by-hand.d.ts: tsc's declarations of
// web/src/elements/package-types.ts and everything it reaches, in one file, by dts-bundle-generator)
// and the Custom Elements Manifest (custom-elements.json, by @custom-elements-manifest/analyzer), which
// editors and tools such as Storybook read for every element, attribute and event. The attributes in both
// come from the settings schema (web/src/settings-schema.ts, through web/tooling/settings-docs.ts).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
// The analyzer brings (and needs) its own TypeScript for reading the sources; declarations use the project's.
import * as analyzer from '@custom-elements-manifest/analyzer';
import type { Plugin as AnalyzerPlugin } from '@custom-elements-manifest/analyzer';
import { generateDtsBundle } from 'dts-bundle-generator';
import tsc from 'typescript';

// The analyzer's own declarations leave out its two exports: create() and the TypeScript it parses with.
const { create, ts } = analyzer as unknown as {
  create(options: { modules: import('typescript').SourceFile[]; plugins?: AnalyzerPlugin[] }): unknown;
  ts: typeof import('typescript');
};
import type { Plugin } from 'vite';
import { loadWebModule } from './load-web-module';
import type { attributeInterfaces, manifestAttributes } from './settings-docs';

const root = resolve(import.meta.dirname, '..', '..');
const elements = resolve(root, 'web/src/elements');

/** The entry of the declarations: the bundle's exports plus the global tag, event and JSX maps. */
export const DECLARATIONS_ENTRY = resolve(elements, 'package-types.ts');
/** The module whose computed attribute types the declarations spell out as interfaces. */
const ATTRIBUTE_TYPES = resolve(elements, 'attribute-types.ts');
/** Modules the manifest is made from: the element classes (the steps' generated from the registry) and the event types they document. */
const MANIFEST_SOURCES = ['attention-element.ts', 'index.ts', 'generated/step-elements.ts', 'package-types.ts'].map((name) =>
  resolve(elements, name),
);
/** The bundle the manifest describes, relative to the manifest (both live in dist/embed/). */
const BUNDLE = 'attention-by-hand.js';

/** The scratch declarations of attribute-types.ts with each computed attribute type spelled out as an interface. */
function spellOutAttributes(file: string, interfaces: ReturnType<typeof attributeInterfaces>): void {
  let text = readFileSync(file, 'utf8');
  for (const [name, declaration] of Object.entries(interfaces)) {
    const computed = new RegExp(`(/\\*\\*(?:(?!\\*/)[\\s\\S])*\\*/\\s*)?export type ${name}\\b[\\s\\S]*?;\\n`);
    if (!computed.test(text)) throw new Error(`${file} declares no ${name}`);
    text = text.replace(computed, `${declaration}\n`);
  }
  writeFileSync(file, text);
}

/**
 * Where the embed build records what it made the declarations from: a hash of each input and of the result.
 * Outside dist/embed, which is the package. tests/unit/package.test.ts compares the record with the tree
 * (declarationsStaleness) instead of generating the declarations a second time (11 s of CPU in the unit
 * suite): the generation is deterministic, so the same inputs give the same file.
 */
export const DECLARATION_INPUTS = resolve(root, 'build', 'package-declarations.inputs.json');

interface DeclarationInputs {
  /** The hash of the declarations the build wrote. */
  declarations: string;
  /** The hash of the attribute interfaces (from the schema) spelled out in them. */
  interfaces: string;
  /** Each file the declarations were made from, relative to the root, with its hash. */
  files: Record<string, string>;
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
/** Beside the sources tsc reads: the options, this generator, and the lock file, which pins TypeScript's and dts-bundle-generator's versions. */
const GENERATOR_FILES = ['tsconfig.json', 'package-lock.json', relative(root, import.meta.filename)];
const fileHashes = (files: string[]) =>
  Object.fromEntries(files.map((file) => [file, existsSync(resolve(root, file)) ? sha256(readFileSync(resolve(root, file))) : 'missing']));

/**
 * tsc's declarations of the entry and what it imports (without a second type check: `npm run typecheck`
 * does that; members marked @internal left out), written to a scratch directory, the attribute types
 * spelled out with their descriptions (`interfaces`, from the schema), then bundled into one file that
 * exports exactly what the entry exports; with the record of its inputs (DECLARATION_INPUTS).
 */
export function bundledDeclarations(interfaces: ReturnType<typeof attributeInterfaces>): { text: string; inputs: DeclarationInputs } {
  const scratch = mkdtempSync(join(tmpdir(), 'abh-declarations-'));
  try {
    const config = tsc.getParsedCommandLineOfConfigFile(
      resolve(root, 'tsconfig.json'),
      {},
      {
        ...tsc.sys,
        onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
          throw new Error(tsc.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
        },
      },
    );
    if (!config) throw new Error('tsconfig.json could not be read');
    const program = tsc.createProgram([DECLARATIONS_ENTRY], {
      ...config.options,
      noEmit: false,
      declaration: true,
      emitDeclarationOnly: true,
      noCheck: true,
      stripInternal: true,
      allowImportingTsExtensions: false,
      rootDir: resolve(root, 'web/src'),
      outDir: scratch,
    });
    const emitted = program.emit();
    // JSON modules (the trained model's record) have no declarations of their own, so TypeScript reports
    // the emit as skipped for them; what counts is a diagnostic, or the entry's declarations missing.
    if (emitted.diagnostics.length > 0)
      throw new Error(tsc.formatDiagnostics(emitted.diagnostics, { ...tsc.sys, getCanonicalFileName: (f) => f, getNewLine: () => '\n' }));
    const entry = join(scratch, relative(resolve(root, 'web/src'), DECLARATIONS_ENTRY).replace(/\.ts$/, '.d.ts'));
    if (!existsSync(entry)) throw new Error(`tsc wrote no declarations for ${DECLARATIONS_ENTRY}`);
    spellOutAttributes(join(scratch, relative(resolve(root, 'web/src'), ATTRIBUTE_TYPES).replace(/\.ts$/, '.d.ts')), interfaces);
    const [text] = generateDtsBundle(
      [{ filePath: entry, output: { inlineDeclareGlobals: true, noBanner: true, exportReferencedTypes: false } }],
      { preferredConfigPath: resolve(root, 'tsconfig.json') },
    );
    const declarations =
      `// Type declarations of the package attention-by-hand, generated from web/src/elements/package-types.ts\n` +
      `// by the embed build (web/tooling/package-declarations.ts). Do not edit.\n\n${text}`;
    // Every file of the project tsc read (JSON modules included); node_modules is pinned by the lock file.
    const sources = program
      .getSourceFiles()
      .map((file) => relative(root, file.fileName))
      .filter((file) => !file.startsWith('..') && !file.split(/[\\/]/).includes('node_modules'));
    const inputs = {
      declarations: sha256(declarations),
      interfaces: sha256(JSON.stringify(interfaces)),
      files: fileHashes([...sources, ...GENERATOR_FILES].sort()),
    };
    return { text: declarations, inputs };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

type Attribute = { name: string; description?: string; type?: { text: string }; default?: string };
type Declaration = {
  kind: string;
  name: string;
  customElement?: boolean;
  tagName?: string;
  attributes?: Attribute[];
  events?: Attribute[];
  members?: { name: string; privacy?: string }[];
};
type Module = { kind: string; path: string; declarations: Declaration[]; exports?: unknown[] };

type Attributes = ReturnType<typeof manifestAttributes>;

/**
 * Attributes come from the settings schema (`attributes`): every element's on AttentionElement, the
 * walkthrough's own on it. Events come from the interface that types them (package-types.ts'
 * AttentionElementEventMap: names, types, descriptions), so each is written once.
 */
function withAttributesAndEvents(attributes: Attributes): AnalyzerPlugin {
  let events: Attribute[] = [];
  return {
    name: 'attention-attributes-and-events',
    collectPhase(params) {
      // Typed with the project's TypeScript; at run time it is the analyzer's, whose nodes these are.
      const node = params.node as unknown as import('typescript').Node;
      if (!ts.isInterfaceDeclaration(node) || node.name.text !== 'AttentionElementEventMap') return;
      events = node.members.filter(ts.isPropertySignature).map((member) => {
        const name = ts.isIdentifier(member.name) || ts.isStringLiteral(member.name) ? member.name.text : member.name.getText();
        const doc = (
          member as unknown as { jsDoc?: { comment?: string | import('typescript').NodeArray<import('typescript').JSDocComment> }[] }
        ).jsDoc?.[0]?.comment;
        const description = typeof doc === 'string' ? doc : doc ? ts.getTextOfJSDocComment(doc) : undefined;
        return { name, ...(description ? { description } : {}), type: { text: member.type?.getText() ?? 'string' } };
      });
    },
    moduleLinkPhase({ moduleDoc }) {
      for (const declaration of (moduleDoc as unknown as Module).declarations) {
        const own =
          declaration.name === 'AttentionElement'
            ? attributes.every
            : declaration.name === 'AttentionWalkthroughElement'
              ? attributes.walkthrough
              : undefined;
        if (own) declaration.attributes = [...(declaration.attributes ?? []), ...own];
        // The analyzer finds the dispatchEvent() calls but knows neither detail types nor meanings.
        if (declaration.name === 'AttentionElement') declaration.events = events;
      }
    },
  };
}

/** The manifest, with `attributes` (settings-docs.ts' manifestAttributes(), from the schema). */
export function elementsManifest(attributes: Attributes): string {
  const modules = MANIFEST_SOURCES.map((file) =>
    ts.createSourceFile(relative(root, file), readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true),
  );
  const manifest = create({ modules, plugins: [withAttributesAndEvents(attributes)] }) as { modules: Module[] };
  // One module, the bundle: its users import attention-by-hand.js, not the sources, and protected or
  // private members (the element's internals) are not part of what it offers. The analyzer also reads
  // `this.shadow.adoptedStyleSheets = …` in the constructor as a field of the element: it is not one.
  const declarations = manifest.modules
    .flatMap((module) => module.declarations)
    .filter((declaration) => declaration.kind === 'class' && (declaration.customElement || declaration.name === 'AttentionElement'))
    .map((declaration) => ({
      ...declaration,
      members: declaration.members?.filter(
        (member) => (!member.privacy || member.privacy === 'public') && member.name !== 'adoptedStyleSheets',
      ),
      // <attention-train>'s attributes are a training run's: the walkthrough's it inherits do not apply.
      ...(declaration.name === 'AttentionTrainElement' ? { attributes: attributes.train } : {}),
    }));
  return `${JSON.stringify(
    {
      ...manifest,
      modules: [
        {
          kind: 'javascript-module',
          path: BUNDLE,
          declarations,
          exports: declarations.flatMap((declaration) => [
            { kind: 'js', name: declaration.name, declaration: { name: declaration.name, module: BUNDLE } },
            ...(declaration.tagName
              ? [{ kind: 'custom-element-definition', name: declaration.tagName, declaration: { name: declaration.name, module: BUNDLE } }]
              : []),
          ]),
        },
      ],
    },
    null,
    2,
  )}\n`;
}

/**
 * What differs between the inputs the build recorded (DECLARATION_INPUTS) and this tree, for the
 * declarations `text` it wrote: [] when they are what this tree generates.
 */
export function declarationsStaleness(text: string, interfaces: ReturnType<typeof attributeInterfaces>): string[] {
  if (!existsSync(DECLARATION_INPUTS)) return [`${relative(root, DECLARATION_INPUTS)} is missing`];
  const recorded = JSON.parse(readFileSync(DECLARATION_INPUTS, 'utf8')) as DeclarationInputs;
  const now = fileHashes(Object.keys(recorded.files));
  return [
    ...(sha256(text) === recorded.declarations ? [] : ['the declarations are not the ones the build wrote']),
    ...(sha256(JSON.stringify(interfaces)) === recorded.interfaces ? [] : ["the schema's attribute interfaces"]),
    ...Object.keys(now).filter((file) => now[file] !== recorded.files[file]),
  ];
}

/** Emits both next to the bundle in the embed build (vite.embed.config.ts), and records the declarations' inputs once they are written. */
export function packageDescriptions(): Plugin {
  let inputs: DeclarationInputs | undefined;
  return {
    name: 'attention-package-descriptions',
    apply: 'build',
    async generateBundle() {
      const docs = await loadWebModule<typeof import('./settings-docs')>('tooling/settings-docs.ts');
      const declarations = bundledDeclarations(docs.attributeInterfaces());
      inputs = declarations.inputs;
      this.emitFile({ type: 'asset', fileName: 'attention-by-hand.d.ts', source: declarations.text });
      this.emitFile({ type: 'asset', fileName: 'custom-elements.json', source: elementsManifest(docs.manifestAttributes()) });
    },
    writeBundle() {
      if (!inputs) return;
      mkdirSync(dirname(DECLARATION_INPUTS), { recursive: true });
      writeFileSync(DECLARATION_INPUTS, `${JSON.stringify(inputs, null, 2)}\n`);
    },
  };
}
