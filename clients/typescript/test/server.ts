// The live server of the tests: the one scripts/test-clients shares through
// ENGRAM_TEST_SERVER, else a fresh `engram serve` started here with
// clients/testing/engram_test_server.py (stopped when its stdin closes).
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import path from "node:path";

export interface TestServer {
  address: string;
  platform_key: string;
  tenants: Record<"A" | "B", { id: string; key: string }>;
  stop(): void;
}

/** The repository root (this file is clients/typescript/dist/test/server.js). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");

export async function startServer(): Promise<TestServer> {
  const shared = process.env.ENGRAM_TEST_SERVER;
  if (shared) {
    return { ...JSON.parse(shared), stop() {} };
  }
  const python = process.env.ENGRAM_PYTHON ?? path.join(repoRoot, ".venv/bin/python");
  const child = spawn(python, [path.join(repoRoot, "clients/testing/engram_test_server.py")], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once("line", resolve);
    child.once("exit", (code) => reject(new Error(`engram_test_server.py exited with ${code}`)));
  });
  lines.close();
  child.stdout.destroy();
  return {
    ...JSON.parse(first),
    stop() {
      child.stdin.end();
    },
  };
}
