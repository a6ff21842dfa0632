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
// The user-info runs to the last "@" before the path, as Go's url.Parse and
// Python's urlsplit read it: a password may hold "@" (P@ssw0rd).
var UserInfoURL = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://)[^/\s]*@`)

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

// secretName matches a key or variable name whose value is a credential: it
// ends in one (DB_PASSWORD, password, esToken, client-secret, api_key,
// credentials), where TOKEN_URL or secretsBackendUrl name a place.
var secretName = regexp.MustCompile(`(?i)(pass|passwd|password|passphrase|pwd|secret|token|credentials?|(api|access|private|secret)[_.-]?key)$`)

// SecretName tells whether a key or variable name holds a credential: the call
// reader never reads its value, so no fragment of a password can become a host.
func SecretName(name string) bool { return secretName.MatchString(name) }
