package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"time"
)

// Client sends the requests of one provider's model to its server: JSON
// bodies to paths under BaseURL, with the provider's headers, each bounded
// by Timeout, each reply read through a cap of MaxReply bytes, and every
// failure classified by Classify. It is the whole of what the providers
// used two vendor SDKs for (2 × ~120k lines compiled), kept to the calls
// they make.
type Client struct {
	HTTP     *http.Client
	BaseURL  string      // as model.CleanBaseURL spells it: no trailing slash; a query is kept
	Header   http.Header // sent with every request: the key, a version
	Provider string      // names the provider in errors
	Key      string      // scrubbed from every error text
	Timeout  time.Duration
	MaxReply int64
}

// URL is path (such as "/chat/completions") under the base URL, keeping
// the base URL's query (Azure's api-version); a query after path's "?"
// (a list's paging: "/batches?limit=100") is added to it. path is not
// escaped: the ids in it are the server's own (file-abc123, msgbatch_01...).
func (c *Client) URL(path string) (string, error) {
	u, err := url.Parse(c.BaseURL)
	if err != nil {
		// url.Parse's error quotes the whole URL, which may hold a secret.
		return "", errors.New("the base URL is not an http(s) URL")
	}
	path, query, _ := strings.Cut(path, "?")
	u.Path = strings.TrimRight(u.Path, "/") + path
	u.RawPath = ""
	if query != "" && u.RawQuery != "" {
		query = "&" + query
	}
	u.RawQuery += query
	return u.String(), nil
}

// Post sends body as JSON to path and decodes the reply's JSON into out
// (raw bytes when out is a *[]byte).
func (c *Client) Post(ctx context.Context, path string, body, out any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return &Unsent{err}
	}
	return c.Do(ctx, http.MethodPost, path, "application/json", data, out)
}

// Get reads path's JSON reply into out.
func (c *Client) Get(ctx context.Context, path string, out any) error {
	return c.Do(ctx, http.MethodGet, path, "", nil, out)
}

// Upload posts a multipart form of fields and one file (OpenAI's Files
// API) and decodes the reply into out.
func (c *Client) Upload(ctx context.Context, path string, fields map[string]string, field, filename, mediaType string, file []byte, out any) error {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for k, v := range fields {
		if err := w.WriteField(k, v); err != nil {
			return &Unsent{err}
		}
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, field, filename))
	h.Set("Content-Type", mediaType)
	part, err := w.CreatePart(h)
	if err != nil {
		return &Unsent{err}
	}
	part.Write(file)
	if err := w.Close(); err != nil {
		return &Unsent{err}
	}
	return c.Do(ctx, http.MethodPost, path, w.FormDataContentType(), buf.Bytes(), out)
}

// Do sends one request and decodes its reply into out (nothing when out
// is nil, the raw body when it is a *[]byte). The whole call, reply
// included, is bounded by Timeout; a failure comes back classified.
func (c *Client) Do(ctx context.Context, method, path, contentType string, body []byte, out any) error {
	callCtx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	res, err := c.send(callCtx, method, path, contentType, body)
	if res != nil {
		defer res.Body.Close()
	}
	if err == nil {
		err = decode(capped(res.Body, c.MaxReply, res.ContentLength), out)
	}
	if err != nil {
		return Classify(c.Provider, c.Key, err, res, ctx, callCtx, c.Timeout)
	}
	return nil
}

// Open sends a GET and returns the reply's body to read as a stream (a
// batch's results file): Timeout bounds the wait for its headers, ctx its
// reading. The body is not capped; the caller bounds what it keeps.
func (c *Client) Open(ctx context.Context, path string) (io.ReadCloser, error) {
	callCtx, cancel := context.WithCancel(ctx)
	timer := time.AfterFunc(c.Timeout, cancel)
	res, err := c.send(callCtx, http.MethodGet, path, "", nil)
	headersIn := timer.Stop()
	if err == nil && !headersIn {
		err = context.DeadlineExceeded
	}
	if err != nil {
		err = Classify(c.Provider, c.Key, err, res, ctx, callCtx, c.Timeout)
		if res != nil {
			res.Body.Close()
		}
		cancel()
		return nil, err
	}
	return &cancelOnClose{ReadCloser: res.Body, cancel: cancel}, nil
}

// send sends one request; a reply with an error status is returned with
// an error, its body unread for Classify.
func (c *Client) send(ctx context.Context, method, path, contentType string, body []byte) (*http.Response, error) {
	u, err := c.URL(path)
	if err != nil {
		return nil, &Unsent{err}
	}
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, r)
	if err != nil {
		return nil, &Unsent{errors.New("the request could not be built")}
	}
	for k, v := range c.Header {
		req.Header[k] = v
	}
	req.Header.Set("Accept", "application/json")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := c.HTTP.Do(req)
	if err != nil {
		return nil, err
	}
	if res.StatusCode >= 400 {
		return res, fmt.Errorf("HTTP %d", res.StatusCode)
	}
	return res, nil
}

// capped reads body through a cap of limit bytes (none when limit is 0
// or less): past it, a read fails with a *TooLargeError. declared is the
// reply's Content-Length, -1 when unknown.
func capped(body io.ReadCloser, limit, declared int64) io.Reader {
	if limit <= 0 {
		return body
	}
	return &cappedBody{ReadCloser: body, left: limit, limit: limit, declared: declared}
}

// decode reads a reply's body into out.
func decode(body io.Reader, out any) error {
	data, err := io.ReadAll(body)
	if err != nil {
		return err
	}
	switch out := out.(type) {
	case nil:
		return nil
	case *[]byte:
		*out = data
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("the reply is not the JSON expected: %w", err)
	}
	return nil
}

// Unsent is a failure before a request left: an unencodable body, a bad
// URL. Retrying cannot help.
type Unsent struct{ Err error }

func (e *Unsent) Error() string { return e.Err.Error() }
func (e *Unsent) Unwrap() error { return e.Err }

// cancelOnClose releases a streamed reply's context when it is closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}
