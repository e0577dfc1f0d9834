import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "out/", "node_modules/", "jetbrains/", "*.mjs"] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        project: ["./tsconfig.json", "./tsconfig.test.json"],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true }],
      "@typescript-eslint/no-unnecessary-condition": "off",
      "@typescript-eslint/no-extraneous-class": "off",
      // Style only: `() => void promise` and `() => emitter.fire()` read well.
      "@typescript-eslint/no-confusing-void-expression": "off",
      // vscode.Disposable is a class, but the API hands out structural disposables (status bar
      // items, tree views): the rule would flag every subscription list.
      "@typescript-eslint/no-unsafe-class-instance-assignment": "off",
    },
  },
);
