<?php
// Requests each URL of the arguments (under php-cgi, which passes a script no
// arguments: of the TARGETS variable) with Guzzle (Debian's php-guzzlehttp-guzzle,
// the curl handler through php-curl) as an application would, the proxy read
// from the environment, and prints each body or "error".
require_once '/usr/share/php/GuzzleHttp/autoload.php';

$client = new GuzzleHttp\Client(['timeout' => 5, 'http_errors' => false]);
$urls = PHP_SAPI === 'cli' ? array_slice($argv, 1) : explode(' ', (string) getenv('TARGETS'));
foreach ($urls as $url) {
    try {
        echo trim((string) $client->get($url)->getBody()), "\n";
    } catch (Throwable $e) {
        echo "error\n";
    }
}
