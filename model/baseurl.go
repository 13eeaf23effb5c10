package model

import (
	"errors"
	"net"
	"net/url"
	"strings"
)

// errBaseURLUser is why a base URL holding a user name or password
// (http://user:sk-...@host/v1) is refused: what it holds is a key, which
// would be written into every output file and printed.
var errBaseURLUser = errors.New("holds a user name or password (USER:PASS@); a key is read from NAME_API_KEY only: remove it from the URL")

// errBaseURLQuery is why a base URL with a key in its query string
// (?key=sk-..., ?api-key=, ?token=) is refused, for the same reason.
var errBaseURLQuery = errors.New("holds a key in its query string (?key=, ?api-key=, ?token=...); a key is read from NAME_API_KEY only: remove it from the URL")

// secretWords are what the name of a secret holds: a config member's
// (api_key, token...), a URL query parameter's (key, api-key, access_token).
var secretWords = []string{"key", "token", "secret", "password", "passwd", "credential", "auth"}

// SecretName reports whether name (a config member, a URL's query
// parameter) is named like a secret: it holds, in any case, key, token,
// secret, password, passwd, credential or auth.
func SecretName(name string) bool {
	name = strings.ToLower(name)
	for _, w := range secretWords {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// SecretValue reports whether v looks like an API key or a header
// carrying one: sk-..., Bearer ....
func SecretValue(v string) bool {
	v = strings.TrimSpace(v)
	return strings.HasPrefix(v, "sk-") || strings.HasPrefix(v, "Bearer ")
}

// unsafeBaseURL is why u may not be a base URL, or nil: it holds a user
// name or password (errBaseURLUser), or its query string a parameter
// named like a secret or a value that looks like a key, or a query
// string that does not parse, which could hide either (errBaseURLQuery).
// It is the one check of every base URL, wherever it came from.
func unsafeBaseURL(u *url.URL) error {
	if u.User != nil {
		return errBaseURLUser
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return errBaseURLQuery
	}
	for name, vs := range q {
		if SecretName(name) || SecretValue(name) {
			return errBaseURLQuery
		}
		for _, v := range vs {
			if SecretValue(v) {
				return errBaseURLQuery
			}
		}
	}
	return nil
}

// CleanBaseURL checks a server's base URL and spells it one way, so that
// one server is one key of the journal, the cache and the batches however
// it was written: scheme and host in lower case, no default port (:80 for
// http, :443 for https), no trailing slash. A URL that is not http(s), or
// that holds a key (unsafeBaseURL), is an error, which never repeats the
// URL or its secret.
func CleanBaseURL(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		// url.Parse's error quotes the whole URL, secret and all.
		return "", errors.New("is not an http(s) URL")
	}
	if err := unsafeBaseURL(u); err != nil {
		return "", err
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", errors.New("is not an http(s) URL")
	}
	host, port := u.Hostname(), u.Port()
	host = strings.ToLower(host)
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	if port != "" {
		u.Host = net.JoinHostPort(host, port)
	} else if strings.Contains(host, ":") {
		u.Host = "[" + host + "]"
	} else {
		u.Host = host
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = strings.TrimRight(u.RawPath, "/")
	u.Fragment, u.RawFragment = "", ""
	return u.String(), nil
}

// redacted stands in a printed URL for what looks like a key.
const redacted = "[redacted]"

// RedactURL is raw as an error, a message or a file may print it: a user
// name or password, a query value named like a secret and every path
// segment or query value that looks like a key (sk-..., a long run of
// letters and digits, a UUID) are "[redacted]". Some proxies take the
// key in the path (http://host/sk-.../v1), which CleanBaseURL cannot tell
// from a path; raw comes back unchanged when nothing in it looks so, and
// as "[a URL that does not parse]" when it does not parse.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "[a URL that does not parse]"
	}
	changed := u.User != nil
	segs := strings.Split(u.EscapedPath(), "/")
	for i, s := range segs {
		if p, err := url.PathUnescape(s); err == nil && keyLike(p) || keyLike(s) {
			segs[i], changed = redacted, true
		}
	}
	query := ""
	if u.RawQuery != "" {
		parts := strings.Split(u.RawQuery, "&")
		for i, kv := range parts {
			name, value, _ := strings.Cut(kv, "=")
			v, err := url.QueryUnescape(value)
			if err != nil {
				v = value
			}
			if SecretName(name) || keyLike(v) || keyLike(name) {
				parts[i], changed = name+"="+redacted, true
			}
		}
		query = "?" + strings.Join(parts, "&")
	}
	if !changed {
		return raw
	}
	user := ""
	if u.User != nil {
		user = redacted + "@"
	}
	return u.Scheme + "://" + user + u.Host + strings.Join(segs, "/") + query
}

// keyLike reports whether s, a URL's path segment or query value, looks
// like a key: SecretValue's (sk-..., Bearer ...), or 16 letters and digits
// in a row holding both (hex and base62 keys; a model's name, such as
// gpt-4o-mini-2024-07-18, has shorter runs), or a UUID.
func keyLike(s string) bool {
	if SecretValue(s) {
		return true
	}
	run, letters, digits := 0, false, false
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			run, digits = run+1, true
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
			run, letters = run+1, true
		default:
			run, letters, digits = 0, false, false
		}
		if run >= 16 && letters && digits {
			return true
		}
	}
	return isUUID(s)
}

// isUUID reports whether s is a UUID's text: 8-4-4-4-12 hex digits.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, r := range s {
		switch i {
		case 8, 13, 18, 23:
			if r != '-' {
				return false
			}
		default:
			if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
				return false
			}
		}
	}
	return true
}
