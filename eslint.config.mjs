// ESLint (npm run lint; also run by test/architecture/lint.test.ts in `npm test`).
// A few rules, chosen for the bugs they catch in this code base, not a style guide:
// promise misuse (type-aware: a lost rejection in an orchestrator is a silent hang) and the
// rules that this code's `eslint-disable` comments name (each disable says why it is needed).
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'native-stub/**', 'reports/**', 'coverage/**', '**/*.js', '**/*.cjs', '**/*.mjs'] },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.base],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // a promise where a condition is expected; async callbacks (timers, events) are allowed
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-require-imports': 'error',
      '@typescript-eslint/no-namespace': 'error',
      'no-control-regex': 'error',
    },
  },
);
