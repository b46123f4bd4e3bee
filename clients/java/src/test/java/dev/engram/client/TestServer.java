package dev.engram.client;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The live server of the tests: the one scripts/test-clients shares through
 * ENGRAM_TEST_SERVER, else a fresh {@code engram serve} started once per test JVM
 * with clients/testing/engram_test_server.py (stopped when its stdin closes, at
 * JVM exit).
 */
final class TestServer {
  static final Path REPO = Path.of(System.getProperty("user.dir")).resolve("../..").normalize();
  private static JsonObject info;

  private TestServer() {}

  static synchronized JsonObject info() {
    if (info == null) {
      info = JsonParser.parseString(start()).getAsJsonObject();
    }
    return info;
  }

  static String address() {
    return info().get("address").getAsString();
  }

  static String key(String tenant) {
    return info().getAsJsonObject("tenants").getAsJsonObject(tenant).get("key").getAsString();
  }

  private static String start() {
    String shared = System.getenv("ENGRAM_TEST_SERVER");
    if (shared != null && !shared.isEmpty()) {
      return shared;
    }
    String python = System.getenv("ENGRAM_PYTHON");
    if (python == null || python.isEmpty()) {
      python = REPO.resolve(".venv/bin/python").toString();
    }
    try {
      Process process =
          new ProcessBuilder(python, REPO.resolve("clients/testing/engram_test_server.py").toString())
              .redirectError(ProcessBuilder.Redirect.INHERIT)
              .start();
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    try {
                      process.getOutputStream().close();
                      process.waitFor();
                    } catch (IOException | InterruptedException e) {
                      process.destroy();
                    }
                  }));
      BufferedReader reader =
          new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
      String line = reader.readLine();
      if (line == null) {
        throw new IllegalStateException("engram_test_server.py exited before it was ready");
      }
      return line;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
