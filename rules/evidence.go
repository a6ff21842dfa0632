package rules

import (
	"path"
	"slices"
	"strings"

	"github.com/proxykit/proxykit/noproxy"
)

// evidence is a client a container evidently runs, and where that shows.
type evidence struct {
	client noproxy.Client
	where  string
}

// evidentClients are the clients a container's image, command or args name:
// curl and wget called as commands (BusyBox's wget in a busybox or alpine
// image), and .NET by its official images or the dotnet command. Only what the
// manifest shows: a rule that needs to know the client judges only these, so a
// container that shows nothing gets no finding.
func evidentClients(c *Context) []evidence {
	image := strings.ToLower(c.Image)
	busybox := strings.Contains(image, "busybox") || strings.Contains(image, "alpine")
	var out []evidence
	seen := map[noproxy.Client]bool{}
	add := func(client noproxy.Client, where string) {
		if !seen[client] {
			seen[client] = true
			out = append(out, evidence{client, where})
		}
	}
	for _, list := range []struct {
		name string
		args []string
	}{{"command", c.Command}, {"args", c.Args}} {
		for _, arg := range list.args {
			for _, word := range strings.FieldsFunc(arg, func(r rune) bool { return strings.ContainsRune(" \t\n;|&()`'\"", r) }) {
				switch path.Base(word) {
				case "curl":
					add(noproxy.Curl, "its "+list.name+" call curl")
				case "wget":
					if busybox {
						add(noproxy.BusyBoxWget, "its "+list.name+" call wget, BusyBox's in image "+c.Image)
					} else {
						add(noproxy.Wget, "its "+list.name+" call wget")
					}
				case "dotnet":
					add(noproxy.DotNet, "its "+list.name+" call dotnet")
				case "kc.sh":
					add(noproxy.Keycloak, "its "+list.name+" call kc.sh, Keycloak's")
				}
			}
		}
	}
	switch {
	case strings.Contains(image, "curlimages/curl"):
		add(noproxy.Curl, "image "+c.Image)
	case strings.Contains(image, "mcr.microsoft.com/dotnet"):
		add(noproxy.DotNet, "image "+c.Image)
	case strings.Contains(path.Base(strings.Split(image, ":")[0]), "keycloak"):
		add(noproxy.Keycloak, "image "+c.Image)
	}
	return out
}

// judgedClients are the clients a container's calls are judged for: every
// client of noproxy.Clients, and those judged where they are seen (Keycloak's
// own) when the container evidently runs them.
func judgedClients(c *Context) []noproxy.Client {
	out := noproxy.Clients
	for _, e := range evidentClients(c) {
		if f, _ := noproxy.FamilyOf(e.client); f.JudgedWhereSeen {
			out = append(slices.Clone(out), e.client)
		}
	}
	return out
}
