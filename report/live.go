package report

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html"
	"io"
)

// live.js makes a served page reload itself when the outputs change.
//
//go:embed live.js
var liveJS string

// Write builds the report of the output files below dir and writes it to
// w: the page agg --serve serves (with Options.Live set).
func Write(ctx context.Context, w io.Writer, dir string, opt Options) error {
	d, data, err := read(ctx, dir, opt)
	if err != nil {
		return err
	}
	return writePage(w, d, data, opt)
}

// WriteNotice writes a page that says message and, like a report served
// with Options.Live, reloads itself when live answers that the outputs
// changed: what agg --serve shows while a folder holds no report yet.
func WriteNotice(w io.Writer, title, message, live string) error {
	_, err := fmt.Fprintf(w, `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src %s; connect-src 'self'; base-uri 'none'; form-action 'none'">
<title>%s</title>
<style>
%s</style>
</head>
<body>
<header><h1>%s</h1></header>
<main><p class="notice">%s</p></main>
%s</body>
</html>
`, scriptHash(liveJS), html.EscapeString(title), pageCSS, html.EscapeString(title), html.EscapeString(message), liveScript(live))
	return err
}

// liveScript is the script element of live.js, asking live.
func liveScript(live string) string {
	return fmt.Sprintf("<script data-url=\"%s\">%s</script>\n", html.EscapeString(live), liveJS)
}

// scriptHash is the Content-Security-Policy source that lets the inline
// script js run, and no other.
func scriptHash(js string) string {
	sum := sha256.Sum256([]byte(js))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}
