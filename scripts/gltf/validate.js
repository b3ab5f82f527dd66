// Validate glTF/GLB files with the Khronos validator.
// Usage: node scripts/gltf/validate.js FILE... ; prints one JSON line per file, exit 1 when any has errors.
const fs = require("fs");
const path = require("path");
const validator = require("gltf-validator");

async function main(files) {
  let failed = false;
  for (const file of files) {
    const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(file)), {
      uri: path.basename(file),
      externalResourceFunction: (uri) =>
        Promise.resolve(new Uint8Array(fs.readFileSync(path.join(path.dirname(file), decodeURIComponent(uri))))),
    });
    const issues = report.issues;
    const errors = issues.messages.filter((m) => m.severity === 0).map((m) => `${m.code} ${m.pointer || ""}: ${m.message}`);
    console.log(JSON.stringify({ file, errors: issues.numErrors, warnings: issues.numWarnings, messages: errors.slice(0, 10) }));
    failed = failed || issues.numErrors > 0;
  }
  process.exit(failed ? 1 : 0);
}

main(process.argv.slice(2)).catch((error) => {
  console.error(String(error));
  process.exit(2);
});
