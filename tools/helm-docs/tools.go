//go:build tools

// Package tools pins helm-docs, which `make docs` builds to generate the chart
// READMEs' values tables from the `# --` comments in values.yaml.
package tools

import _ "github.com/norwoodj/helm-docs/cmd/helm-docs"
