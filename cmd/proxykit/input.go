package main

import (
	"io"
	"os"
)

// maxManifests bounds what check reads: a chart's render is a few MiB at most,
// and /dev/zero or a wrong pipe must end in an error, not a read that never ends.
const maxManifests = 64 << 20

// readManifests reads rendered manifests from file, or from stdin when file is ""
// or "-", and stops at maxManifests.
func readManifests(file string, stdin io.Reader) ([]byte, error) {
	in := stdin
	if file != "" && file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return nil, usagef("%v", err)
		}
		defer f.Close()
		in = f
	}
	text, err := io.ReadAll(io.LimitReader(in, maxManifests+1))
	if err != nil {
		return nil, usagef("read manifests: %v", err)
	}
	if len(text) > maxManifests {
		return nil, usagef("the input is larger than %d MiB; give the charts one by one", maxManifests>>20)
	}
	return text, nil
}
