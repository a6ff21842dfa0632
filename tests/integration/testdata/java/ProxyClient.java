import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The JVM client of the NO_PROXY tests: fetches each URL with HttpURLConnection
 * (mode "urlconnection") or java.net.http.HttpClient (mode "httpclient"), both
 * with the JVM's default ProxySelector, which reads the system properties that
 * JAVA_TOOL_OPTIONS sets, and prints each body, or "error".
 */
public final class ProxyClient {
    public static void main(String[] args) {
        String mode = args[0];
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        for (int i = 1; i < args.length; i++) {
            try {
                if (mode.equals("httpclient")) {
                    HttpRequest request = HttpRequest.newBuilder(URI.create(args[i])).timeout(Duration.ofSeconds(5)).build();
                    System.out.print(client.send(request, HttpResponse.BodyHandlers.ofString()).body());
                } else {
                    HttpURLConnection c = (HttpURLConnection) URI.create(args[i]).toURL().openConnection();
                    c.setConnectTimeout(5000);
                    c.setReadTimeout(5000);
                    try (InputStream in = c.getInputStream()) {
                        System.out.print(new String(in.readAllBytes(), StandardCharsets.UTF_8));
                    }
                }
            } catch (Exception e) {
                System.out.println("error");
                System.err.println(args[i] + ": " + e);
            }
        }
        System.out.flush();
    }
}
