#!/bin/sh
set -e
until nc -z mysql.db 3306; do sleep 2; done
curl -fsS -X POST http://config-server.platform:8888/actuator/refresh
# curl http://debug-endpoint:9999/
openssl req -x509 -newkey rsa:4096 -nodes -keyout /tmp/key.pem -subj "/CN=app"
exec java -jar app.jar --spring.config.import=configserver:http://config-server.platform:8888
