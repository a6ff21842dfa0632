// Command registry runs the CNCF distribution registry (the OCI registry Docker
// and most clouds build on) with in-memory storage, for the distribution tests:
// `registry 127.0.0.1:PORT`. Only the in-memory driver is linked, so the build
// does not pull in the cloud storage drivers of the upstream command.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/distribution/distribution/v3/configuration"
	"github.com/distribution/distribution/v3/registry"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/inmemory"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: registry HOST:PORT")
		os.Exit(2)
	}
	config, err := configuration.Parse(strings.NewReader(fmt.Sprintf(`
version: 0.1
log: {level: error, accesslog: {disabled: true}}
storage: {inmemory: {}, delete: {enabled: true}}
http: {addr: %q}
`, os.Args[1])))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	r, err := registry.NewRegistry(context.Background(), config)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := r.ListenAndServe(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
