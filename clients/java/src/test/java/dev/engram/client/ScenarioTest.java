package dev.engram.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import dev.engram.v1.MemoryProposal;
import dev.engram.v1.MemoryStatus;
import dev.engram.v1.Policy;
import dev.engram.v1.ProposalResult;
import dev.engram.v1.WatchTransitionsRequest;
import dev.engram.v1.WatchTransitionsResponse;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** clients/scenario.json, run with the Java client. */
class ScenarioTest {
  private static final Pattern VARIABLE = Pattern.compile("\\$\\{(\\w+)\\}");

  private static JsonElement substitute(JsonElement value, Map<String, String> vars) {
    if (value.isJsonPrimitive() && value.getAsJsonPrimitive().isString()) {
      Matcher m = VARIABLE.matcher(value.getAsString());
      StringBuilder out = new StringBuilder();
      while (m.find()) {
        String name = m.group(1);
        assertTrue(vars.containsKey(name), "unknown variable " + name);
        m.appendReplacement(out, Matcher.quoteReplacement(vars.get(name)));
      }
      m.appendTail(out);
      return new JsonPrimitive(out.toString());
    }
    if (value.isJsonArray()) {
      JsonArray out = new JsonArray();
      value.getAsJsonArray().forEach(v -> out.add(substitute(v, vars)));
      return out;
    }
    if (value.isJsonObject()) {
      JsonObject out = new JsonObject();
      value.getAsJsonObject().entrySet().forEach(e -> out.add(e.getKey(), substitute(e.getValue(), vars)));
      return out;
    }
    return value;
  }

  private static String status(MemoryStatus s) {
    return s.name().substring("MEMORY_STATUS_".length());
  }

  private static Map<String, Object> perform(EngramClient c, String call, JsonObject a) {
    switch (call) {
      case "set_policy": {
        Policy p = c.setPolicy(a.get("space").getAsString(),
            Policy.newBuilder().setMinConfidence(a.get("min_confidence").getAsDouble()).build());
        return Map.of("policy", p.getName());
      }
      case "propose": {
        MemoryProposal.Builder p = MemoryProposal.newBuilder()
            .setSpace(a.get("space").getAsString())
            .setContent(a.get("content").getAsString())
            .setConfidence(a.get("confidence").getAsDouble());
        if (a.has("tags")) {
          a.getAsJsonArray("tags").forEach(t -> p.addTags(t.getAsString()));
        }
        ProposalResult r = c.propose(p.build());
        return Map.of(
            "outcome", r.getOutcome().name().substring("PROPOSAL_OUTCOME_".length()),
            "status", status(r.getMemory().getStatus()),
            "memory", r.getMemory().getName());
      }
      case "confirm": {
        var m = c.confirm(a.get("memory").getAsString(), a.get("reason").getAsString());
        return Map.of("memory", m.getName(), "status", status(m.getStatus()));
      }
      case "recall": {
        JsonArray spaces = a.getAsJsonArray("spaces");
        String[] names = new String[spaces.size()];
        for (int i = 0; i < names.length; i++) {
          names[i] = spaces.get(i).getAsString();
        }
        var r = c.recall(a.get("query").getAsString(), names);
        return Map.of("top", r.getHitsCount() == 0 ? "" : r.getHits(0).getMemory().getName());
      }
      case "watch": {
        WatchTransitionsRequest.Builder req = WatchTransitionsRequest.newBuilder()
            .setSpace(a.get("space").getAsString())
            .setCursor(a.get("cursor").getAsString());
        a.getAsJsonArray("statuses")
            .forEach(s -> req.addStatuses(MemoryStatus.valueOf("MEMORY_STATUS_" + s.getAsString())));
        try (ServerStream<WatchTransitionsResponse> events = c.watch(req.build())) {
          for (WatchTransitionsResponse event : events) {
            return Map.of("memory", event.getEntry().getMemory(), "status", status(event.getEntry().getToStatus()));
          }
        }
        return Map.of();
      }
      case "append_message": {
        var r = c.appendMessage(a.get("space").getAsString(), a.get("session").getAsString(),
            a.get("role").getAsString(), a.get("content").getAsString());
        return Map.of("buffered_messages", (double) r.getBufferedMessages());
      }
      case "get": {
        var m = c.get(a.get("memory").getAsString());
        return Map.of("memory", m.getName(), "status", status(m.getStatus()));
      }
      default:
        throw new IllegalArgumentException("unknown call " + call);
    }
  }

  @Test
  void theSharedScenario() throws Exception {
    JsonObject scenario = JsonParser.parseString(
        Files.readString(TestServer.REPO.resolve("clients/scenario.json"))).getAsJsonObject();
    Map<String, String> vars = new HashMap<>();
    vars.put("space", "clients/java-" + UUID.randomUUID().toString().substring(0, 8));
    Map<String, EngramClient> clients = Map.of(
        "A", EngramClient.builder().address(TestServer.address()).apiKey(TestServer.key("A")).build(),
        "B", EngramClient.builder().address(TestServer.address()).apiKey(TestServer.key("B")).build());
    try {
      for (JsonElement element : scenario.getAsJsonArray("steps")) {
        JsonObject step = element.getAsJsonObject();
        String name = step.get("step").getAsString();
        JsonObject args = substitute(step.get("args"), vars).getAsJsonObject();
        JsonObject expect = substitute(step.get("expect"), vars).getAsJsonObject();
        Map<String, Object> observed;
        try {
          observed = perform(clients.get(step.get("tenant").getAsString()), step.get("call").getAsString(), args);
        } catch (EngramException e) {
          if (!expect.has("error")) {
            throw new AssertionError(name + ": unexpected " + e, e);
          }
          observed = Map.of("error", e.codeName(), "fields", e.fields());
        }
        for (var entry : expect.entrySet()) {
          JsonPrimitive want = entry.getValue().getAsJsonPrimitive();
          if (entry.getKey().equals("field")) {
            assertTrue(((java.util.List<?>) observed.get("fields")).contains(want.getAsString()),
                name + ": field " + want + " not in " + observed);
          } else {
            Object got = observed.get(entry.getKey());
            Object expected = want.isNumber() ? (Object) want.getAsDouble() : want.getAsString();
            assertEquals(expected, got, name + ": " + entry.getKey() + " in " + observed);
          }
        }
        if (step.has("save")) {
          assertNotNull(observed.get("memory"), name);
          vars.put(step.get("save").getAsString(), (String) observed.get("memory"));
        }
      }
    } finally {
      clients.values().forEach(EngramClient::close);
    }
  }
}
