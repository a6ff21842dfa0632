package manifest

import (
	"net/url"
	"regexp"
	"strings"
)

// UserInfoURL matches the start of a URL of any scheme (http, https, socks5,
// socks5h, ...) with user-info: the scheme, "://", then anything but "/", "@" and
// blanks up to an "@". Quotes count: a password may hold them. It is the one
// pattern that finds user-info (credentials-exposed) and hides it (RedactUserInfo).
var UserInfoURL = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@]*@`)

// RedactUserInfo replaces the user-info of every URL in s with "***".
func RedactUserInfo(s string) string { return UserInfoURL.ReplaceAllString(s, "${1}***@") }

// HasUserInfo tells whether s, or one of its comma- or blank-separated fields,
// is a URL with user-info.
func HasUserInfo(s string) bool {
	for _, field := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		if u, err := url.Parse(field); err == nil && u.User != nil && u.Host != "" {
			return true
		}
	}
	return UserInfoURL.MatchString(s)
}
