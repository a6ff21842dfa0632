import os

CLICKHOUSE_HOST = env("CLICKHOUSE_HOST", "clickhouse")
RELAY_URL = "http://app-relay:3000"
BROKER_URL = os.environ.get("BROKER_URL", "amqp://guest:guest@rabbitmq.queues:5672//")
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.memcached.PyMemcacheCache",
        # "LOCATION": ["memcached-old:11211"],
        "LOCATION": ["app-memcached:11211"],
    }
}
OIDC_ISSUER = "https://login.corp.example/realms/main"
SECRET_KEY = "abc:1234"
