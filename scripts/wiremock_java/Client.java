// WireMock's own Java client (from the wiremock npm package's standalone jar) driving
// stubtool's /__admin/ as a Java test suite would: stub, call, verify, find, scenarios,
// remove, reset. Run by scripts/wiremock_java_client.mjs (npm run check:wiremock-java).
import static com.github.tomakehurst.wiremock.client.WireMock.*;
import com.github.tomakehurst.wiremock.client.WireMock;
import com.github.tomakehurst.wiremock.client.VerificationException;
import com.github.tomakehurst.wiremock.stubbing.StubMapping;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import java.net.URI;
import java.net.http.*;
import java.util.*;

public class Client {
  static HttpClient http = HttpClient.newHttpClient();
  static String hget(String url, String... headers) throws Exception {
    var b = HttpRequest.newBuilder(URI.create(url)).version(HttpClient.Version.HTTP_1_1);
    for (int i = 0; i < headers.length; i += 2) b.header(headers[i], headers[i+1]);
    var r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    return r.statusCode() + " " + r.body();
  }
  static String hpost(String url, String body) throws Exception {
    var r = http.send(HttpRequest.newBuilder(URI.create(url)).version(HttpClient.Version.HTTP_1_1).POST(HttpRequest.BodyPublishers.ofString(body)).header("Content-Type","application/json").build(), HttpResponse.BodyHandlers.ofString());
    return r.statusCode() + " " + r.body();
  }
  static void check(String what, Object got, Object want) {
    if (!Objects.equals(String.valueOf(got), String.valueOf(want))) { System.out.println("FAIL " + what + ": got " + got + ", want " + want); fails++; }
    else System.out.println("ok   " + what);
  }
  static int fails = 0;
  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    String base = "http://localhost:" + port;
    WireMock wm = new WireMock("localhost", port);
    wm.resetToDefaultMappings();
    wm.register(get(urlPathEqualTo("/users/1")).willReturn(okJson("{\"id\":1}")));
    wm.register(post(urlPathEqualTo("/orders")).withRequestBody(matchingJsonPath("$.sku")).willReturn(aResponse().withStatus(201).withHeader("Location", "/orders/9")));
    wm.register(get(urlPathEqualTo("/greet")).withQueryParam("name", matching("[a-z]+")).willReturn(aResponse().withBody("Hello {{request.query.name}}").withTransformers("response-template")));
    check("GET /users/1", hget(base + "/users/1"), "200 {\"id\":1}");
    check("POST /orders", hpost(base + "/orders", "{\"sku\":\"a\"}"), "201 ");
    check("template", hget(base + "/greet?name=ada"), "200 Hello ada");
    check("mappings count", wm.allStubMappings().getMappings().size(), 3);
    try { wm.verifyThat(1, postRequestedFor(urlPathEqualTo("/orders"))); check("verify count", "ok", "ok"); } catch (VerificationException e) { check("verify count", e.getMessage(), "ok"); }
    List<LoggedRequest> found = wm.find(getRequestedFor(urlPathEqualTo("/users/1")));
    check("find", found.size(), 1);
    check("find url", found.get(0).getUrl(), "/users/1");
    check("unmatched before", wm.findAllUnmatchedRequests().size(), 0);
    hget(base + "/nothing");
    check("unmatched after", wm.findAllUnmatchedRequests().size(), 1);
    // scenarios
    wm.register(get(urlPathEqualTo("/cart")).inScenario("cart").whenScenarioStateIs("Started").willReturn(okJson("[]")));
    wm.register(post(urlPathEqualTo("/cart")).inScenario("cart").whenScenarioStateIs("Started").willSetStateTo("full").willReturn(aResponse().withStatus(201)));
    wm.register(get(urlPathEqualTo("/cart")).inScenario("cart").whenScenarioStateIs("full").willReturn(okJson("[1]")));
    check("cart empty", hget(base + "/cart"), "200 []");
    hpost(base + "/cart", "{}");
    check("cart full", hget(base + "/cart"), "200 [1]");
    check("scenario state", wm.getScenarios().stream().filter(s -> s.getName().equals("cart")).findFirst().get().getState(), "full");
    wm.setSingleScenarioState("cart", "Started");
    check("cart after setState", hget(base + "/cart"), "200 []");
    wm.resetScenarios();
    StubMapping m = wm.register(get(urlPathEqualTo("/tmp")).willReturn(ok("t")));
    check("tmp", hget(base + "/tmp"), "200 t");
    wm.removeStubMapping(m);
    check("tmp removed", hget(base + "/tmp").startsWith("404"), true);
    // P20.3/P20.4: serve events (UUID ids), near misses, metadata, settings, recording status, save.
    List<com.github.tomakehurst.wiremock.stubbing.ServeEvent> events = wm.getServeEvents();
    check("serve events read (UUID ids)", events.size() > 0 && events.stream().allMatch(e -> e.getId() != null), true);
    check("serve events unique", events.stream().map(e -> e.getId()).distinct().count(), events.size());
    hget(base + "/users/2");
    List<com.github.tomakehurst.wiremock.verification.NearMiss> near = wm.findNearMissesForAllUnmatchedRequests();
    check("near misses of /users/2", near.stream().anyMatch(n -> n.getRequest().getUrl().equals("/users/2") && n.getStubMapping().getRequest().getUrlPath().equals("/users/1")), true);
    check("removeEvents", wm.removeEvents(getRequestedFor(urlPathEqualTo("/users/2"))).size(), 1);
    wm.register(get(urlPathEqualTo("/meta")).withMetadata(java.util.Map.of("team", "a")).willReturn(ok("m")));
    check("meta", hget(base + "/meta"), "200 m");
    check("findAllStubsByMetadata", wm.findAllStubsByMetadata(matchingJsonPath("$.team", equalTo("a"))).size(), 1);
    check("removeEventsByMetadata", wm.removeEventsByMetadata(matchingJsonPath("$.team")).size(), 1);
    wm.removeStubsByMetadataPattern(matchingJsonPath("$.team", equalTo("a")));
    check("meta removed", hget(base + "/meta").startsWith("404"), true);
    check("global settings", wm.getGlobalSettings().getFixedDelay(), null);
    wm.updateGlobalSettings(com.github.tomakehurst.wiremock.global.GlobalSettings.builder().build());
    check("recording status", wm.getStubRecordingStatus().getStatus(), "NeverStarted");
    StubMapping saved = wm.register(get(urlPathEqualTo("/saved")).withName("saved one").willReturn(ok("s")));
    wm.saveMappings();
    check("saveMappings wrote a file", java.nio.file.Files.exists(java.nio.file.Path.of(args[1], "mappings", "saved-one-" + saved.getId() + ".json")), true);
    wm.resetRequests();
    check("requests after reset", wm.find(anyRequestedFor(anyUrl())).size(), 0);
    wm.resetMappings();
    check("mappings after reset", wm.allStubMappings().getMappings().size(), 0);
    System.out.println(fails == 0 ? "ALL OK" : fails + " FAILED");
    System.exit(fails == 0 ? 0 : 1);
  }
}
