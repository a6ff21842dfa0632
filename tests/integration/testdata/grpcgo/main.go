// Command grpcgo is the gRPC side of the NO_PROXY tests, built twice from this
// module: with the current grpc-go (go.mod) and with grpc-go 1.70 (go170.mod),
// the last release of the line (1.63 to 1.70) that matched NO_PROXY against the
// address a target's name resolved to.
//
//	grpcgo serve ADDR            serves the standard health service on ADDR
//	grpcgo LOG HOST:PORT...      calls it on each target, the proxy read from the
//	                             environment, and prints "proxy" when the proxy's
//	                             log LOG grew, "direct" when it did not, or "error"
package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

func main() {
	if len(os.Args) == 3 && os.Args[1] == "serve" {
		l, err := net.Listen("tcp", os.Args[2])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		s := grpc.NewServer()
		healthpb.RegisterHealthServer(s, health.NewServer())
		_ = s.Serve(l)
		return
	}
	log := os.Args[1]
	requests := func() int {
		b, _ := os.ReadFile(log)
		return strings.Count(string(b), "Request (file descriptor")
	}
	for _, target := range os.Args[2:] {
		before := requests()
		conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_, err = healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
			cancel()
			conn.Close()
		}
		switch {
		case err != nil:
			fmt.Println("error")
			fmt.Fprintln(os.Stderr, target, err)
		case requests() > before:
			fmt.Println("proxy")
		default:
			fmt.Println("direct")
		}
	}
}
