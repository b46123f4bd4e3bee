// Builds dist/ with the TypeScript this package pins. npm runs it as `prepare`,
// also when a user installs the package from a directory or a git URL: then the
// package's own devDependencies are not installed yet, so this installs them
// first (from package-lock.json) instead of failing on a missing `tsc`.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const tsc = path.join(root, "node_modules", "typescript", "bin", "tsc");
const project = process.argv[2] ?? "tsconfig.build.json";

if (!existsSync(tsc)) {
  const npm = process.env.npm_execpath;
  const [command, args] = npm ? [process.execPath, [npm]] : ["npm", []];
  // The outer install's settings (omit=dev, a global prefix, ...) must not leak in.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith("npm_config_")),
  );
  console.error("engram-grpc: installing the build tools (npm ci --include=dev)");
  execFileSync(
    command,
    [...args, "ci", "--include=dev", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
    { cwd: root, stdio: ["ignore", "ignore", "inherit"], env },
  );
}
execFileSync(process.execPath, [tsc, "-p", project], { cwd: root, stdio: "inherit" });
