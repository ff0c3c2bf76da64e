import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-results/**', 'playwright-report/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // `a && b(), c()` style guard clauses read fine in filter builders.
      '@typescript-eslint/no-unused-expressions': ['error', { allowShortCircuit: true }],
    },
  },
  {
    // CommonJS scripts load their dependencies with require().
    files: ['**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['test/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The service must stay Electron-free: tests, the CLI and Electron all start it.
    files: ['src/main/service/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'src/main/service must not import electron' }] }] },
  },
  {
    // The renderer reaches the outside only through window.sandlab (bridge/).
    files: ['src/renderer/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'use the bridge' }] }] },
  },
);
