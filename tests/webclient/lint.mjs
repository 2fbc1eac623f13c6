// The browser's scripts, checked by ESLint as the ES modules they are: a name used
// but never declared or imported, a variable never used, a duplicate key.
// `node tests/webclient/lint.mjs` from anywhere; exits 1 with one line a fault.
import { ESLint } from "eslint";
import globals from "globals";

const root = new URL("../../", import.meta.url).pathname;
const scripts = "webclient/static/js/**/*.js";
const eslint = new ESLint({
  cwd: root,
  overrideConfigFile: true,
  overrideConfig: [{
    files: [scripts],
    languageOptions: { ecmaVersion: 2024, sourceType: "module", globals: globals.browser },
    rules: {
      "no-undef": "error",
      "no-unused-vars": ["error", { args: "none", caughtErrors: "none" }],
      "no-redeclare": "error",
      "no-dupe-keys": "error",
      "no-unreachable": "error",
      "no-import-assign": "error",
    },
  }],
});
const faults = (await eslint.lintFiles([scripts])).flatMap((result) =>
  result.messages.map((m) => `${result.filePath.slice(root.length)}:${m.line}: ${m.message} (${m.ruleId})`));
for (const fault of faults) console.log(fault);
process.exit(faults.length ? 1 : 0);
