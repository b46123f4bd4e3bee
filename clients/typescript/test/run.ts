// `npm test`: one live server (shared through ENGRAM_TEST_SERVER) for every test
// file, then `node --test` over them.
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "./server.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const files = readdirSync(here)
  .filter((f) => f.endsWith(".test.js"))
  .map((f) => path.join(here, f));
const server = await startServer();
const { stop, ...info } = server;
const code = await new Promise<number>((resolve) => {
  const child = spawn(process.execPath, ["--test", ...files], {
    stdio: "inherit",
    env: { ...process.env, ENGRAM_TEST_SERVER: JSON.stringify(info) },
  });
  child.on("exit", (status) => resolve(status ?? 1));
});
stop();
process.exitCode = code;
