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

// CleanBaseURL checks a server's base URL and spells it one way, so that
// one server is one key of the journal, the cache and the batches however
// it was written: scheme and host in lower case, no default port (:80 for
// http, :443 for https), no trailing slash. A URL that is not http(s), or
// that holds a user name or password (errBaseURLUser), is an error, which
// never repeats the URL's secret.
func CleanBaseURL(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		// url.Parse's error quotes the whole URL, secret and all.
		return "", errors.New("is not an http(s) URL")
	}
	if u.User != nil {
		return "", errBaseURLUser
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
