<?php
// Requests each URL of the arguments with Guzzle (Debian's php-guzzlehttp-guzzle,
// the curl handler through php-curl) as an application would, the proxy read
// from the environment, and prints each body or "error".
require_once '/usr/share/php/GuzzleHttp/autoload.php';

$client = new GuzzleHttp\Client(['timeout' => 5, 'http_errors' => false]);
foreach (array_slice($argv, 1) as $url) {
    try {
        echo trim((string) $client->get($url)->getBody()), "\n";
    } catch (Throwable $e) {
        echo "error\n";
    }
}
