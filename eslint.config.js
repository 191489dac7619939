// typescript-eslint's recommended rules over the TypeScript and the build scripts.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'build/', 'dist/', 'web/src/engine/generated/', 'custom-elements.json'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // The sanitisers strip control characters on purpose: matching them is the point.
      'no-control-regex': 'off',
      // Declaration merging into the DOM's and JSX's global maps is how a package adds its tags.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
      '@typescript-eslint/no-namespace': ['error', { allowDeclarations: true }],
    },
  },
  {
    // The page's first locale-aware call sets up ICU data: 50–250 ms on the main thread (a long task the
    // training bench caught). format.ts formats numbers without it.
    files: ['web/src/**'],
    rules: {
      'no-restricted-properties': [
        'error',
        { property: 'toLocaleString', message: 'Use groupDigits or count from ui/format.ts: no locale set-up.' },
      ],
    },
  },
  { files: ['web/scripts/**', 'tests/**', '*.config.*'], languageOptions: { globals: { ...globals.node, ...globals.browser } } },
);
