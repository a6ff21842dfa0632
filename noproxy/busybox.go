package noproxy

// BusyBox's wget: http_proxy for every scheme, no NO_PROXY at all, and plain
// HTTP to the proxy.
var _ = register(Family{Client: BusyBoxWget, Lists: []List{ListOther}, Rank: 200, Match: plain(busyboxDecide),
	Reads:        Variables{Proxy: []string{"http_proxy"}},
	NoHTTPSProxy: "BusyBox's wget speaks plain HTTP to the proxy"})

// busyboxDecide models BusyBox 1.35's wget: it reads no NO_PROXY at all, so a
// request goes through http_proxy whenever that is set (https:// ones too, as
// "GET https://..." to the proxy, never CONNECT); only -Y off or an unset
// http_proxy sends it directly.
func busyboxDecide(string, target) (bool, string) { return false, "" }
