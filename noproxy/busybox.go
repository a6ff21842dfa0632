package noproxy

// busyboxDecide models BusyBox 1.35's wget: it reads no NO_PROXY at all, so a
// request goes through http_proxy whenever that is set (https:// ones too, as
// "GET https://..." to the proxy, never CONNECT); only -Y off or an unset
// http_proxy sends it directly.
func busyboxDecide(string, target) (bool, string) { return false, "" }
