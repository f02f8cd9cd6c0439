// One flat config for the whole monorepo: typescript-eslint with type information,
// unicorn's file-name rule, and Prettier owning all formatting.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import unicorn from 'eslint-plugin-unicorn';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'proto/gen/**',
      'sdk/typescript/src/generated/**',
      'coverage/**',
      '.local/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    plugins: { unicorn },
    rules: {
      'unicorn/filename-case': ['error', { case: 'camelCase' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
      'no-console': 'error',
      eqeqeq: ['error', 'always'],
    },
  },
  {
    files: [
      '**/*.test.ts',
      'packages/testkit/**',
      'scripts/**',
      'sdk/typescript/scripts/**',
      '**/bin/**',
    ],
    rules: {
      'no-console': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // The client package's pack-check consumers are type-checked by that check, against the
    // packed tarball, not by the repository's project.
    files: ['sdk/typescript/scripts/packCheck/*.mts', 'sdk/typescript/scripts/packCheck/*.cts'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // The console's two small browser scripts (served as /static/*.js).
    files: ['console/public/**/*.js'],
    languageOptions: { globals: { ...globals.browser }, sourceType: 'script' },
  },
  {
    // CommonJS scripts: require() is their module system.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
);
