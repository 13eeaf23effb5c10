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
