package noproxy

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
)

// Family is one client's model, registered by the file that holds its
// matcher (as image.RegisterFormat registers a format): the variables it
// reads, how it matches NO_PROXY, and what the check rules need to know of it.
// A client is added by one file with one register call.
type Family struct {
	Client Client
	// Lists are where explain lists it (Node.js 24's clients are in two), and
	// Rank its place there: the lists are ordered by rank.
	Lists []List
	Rank  int
	// Reads are the variables it reads for a plain-HTTP request.
	Reads Variables
	// Match decides on a NO_PROXY list: direct or not, and the entry that
	// decided; an error of type refusal when the client makes no request.
	Match matcher
	// ReadEnv reads the variables it is started with its own way: the list it
	// matches, or why it goes direct, or why it makes no request. nil: as Reads says.
	ReadEnv envReader
	// DecideEnv decides on the variables alone, when they are not one NO_PROXY
	// list (the JVM's -D flags, Guzzle over curl with two readings). nil: ReadEnv, then Match.
	DecideEnv func(client Client, env map[string]string, t target) (bool, string)
	// FromSource: modelled from its source and its project's own test cases,
	// with no runtime the project's tests can run (no reachable registry ships one).
	FromSource bool
	// NoHTTPSProxy is what the client does with an https:// proxy URL, which it
	// cannot use; "" when it can.
	NoHTTPSProxy string
	// JudgedWhereSeen: one program's own client (Keycloak's), which the check
	// rules judge on a container that evidently runs it, beside Clients.
	JudgedWhereSeen bool
}

// List is one of the lists of clients explain shows.
type List int

const (
	// ListMain are the clients explain shows first and the check rules judge (Clients).
	ListMain List = iota
	// ListNode are the Node.js clients of every LTS line (NodeClients).
	ListNode
	// ListOther are the clients explain shows that the rules judge otherwise (OtherClients).
	ListOther
)

// matcher decides for one client on a NO_PROXY list.
type matcher func(client Client, noProxy string, t target, addr netip.Addr) (bool, string, error)

// envReader reads a client's variables: the NO_PROXY list it matches, or why
// it sends every request directly, or why it makes none (refused).
type envReader func(client Client, env map[string]string, t target) (list, direct, refused string)

// registry holds every family, by client; register fills it while the
// package's variables are initialised, before its init functions run.
var registry = map[Client]Family{}

// register adds a family; a client registered twice is a programming error.
func register(f Family) struct{} {
	if _, dup := registry[f.Client]; dup {
		panic(fmt.Sprintf("noproxy: client %s registered twice", f.Client))
	}
	if f.Match == nil {
		panic(fmt.Sprintf("noproxy: client %s has no matcher", f.Client))
	}
	registry[f.Client] = f
	return struct{}{}
}

// FamilyOf is the model of a client; false for one no file registers.
func FamilyOf(c Client) (Family, bool) {
	f, ok := registry[c]
	return f, ok
}

// listed are the clients of a list, by rank.
func listed(l List) []Client {
	var fams []Family
	for _, f := range registry {
		if slices.Contains(f.Lists, l) {
			fams = append(fams, f)
		}
	}
	slices.SortFunc(fams, func(a, b Family) int { return cmp.Compare(a.Rank, b.Rank) })
	out := make([]Client, len(fams))
	for i, f := range fams {
		out[i] = f.Client
	}
	return out
}

func init() {
	Clients, NodeClients, OtherClients = listed(ListMain), listed(ListNode), listed(ListOther)
}

// plain adapts a model that needs only the list and the target.
func plain(decide func(noProxy string, t target) (bool, string)) matcher {
	return func(_ Client, noProxy string, t target, _ netip.Addr) (bool, string, error) {
		d, e := decide(noProxy, t)
		return d, e, nil
	}
}
