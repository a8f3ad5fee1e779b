// Plain JavaScript on purpose: it must run on the old Node that cannot load the project's
// TypeScript, and say in one line what is needed instead of ERR_UNKNOWN_FILE_EXTENSION.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  console.error(`This project needs Node.js 22.18 or newer (24 recommended); this is ${process.version}. Get it from nodejs.org, or run ". scripts/node24.sh" to put Node 24 from the npm registry first on PATH.`);
  process.exit(1);
}
