package aggcmd

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/evalmd/evalmd/agg"
	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/cmd/internal/watch"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/report"
	"github.com/evalmd/evalmd/result"
)

// longPoll is how long a page's question "did the outputs change?" is held
// open before the server says "not yet" (the page asks again at once).
const longPoll = 25 * time.Second

// serveFlags are the flags that go with --serve: the folder and what the
// report counts. The others write files or lay out the markdown.
var serveFlags = []string{"i", "serve", "allow-remote", "include-dry-runs", "latest-version", "max-discrepancies", "reducer", "v"}

// serveOptions are agg --serve's: where, what, and who reviews.
type serveOptions struct {
	addr        string
	allowRemote bool
	dir         string
	page        report.Options
	by          string                       // the reviewer the page names first
	seal        func() (*outfile.Key, error) // the machine's key, asked at the first verdict
}

// serve is agg --serve ADDR: the HTML report of the folder, made afresh
// when its output files change, at http://ADDR/, until ctx ends. The page
// asks /changes whether they changed since it was made and reloads itself
// when they did; on loopback, it sends /verdict a person's verdict on an
// answer (verdicts.go).
func serve(ctx context.Context, stderr io.Writer, fs *flag.FlagSet, so serveOptions) error {
	var other []string
	fs.Visit(func(f *flag.Flag) {
		if !slices.Contains(serveFlags, f.Name) {
			other = append(other, "-"+f.Name)
		}
	})
	if len(other) > 0 {
		return cli.Usagef("--serve serves the HTML report alone; %v go without it", other)
	}
	listen, err := serveAddr(so.addr, so.allowRemote)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("--serve: %w", err)
	}
	s, err := newServer(stderr, ln.Addr(), so)
	if err != nil {
		ln.Close()
		return err
	}
	dir := so.dir
	w := &watch.Watcher{List: func() []string {
		found, _ := result.Find(dir, nil) // none yet is no error: the page says so
		return found
	}}
	w.Mark()
	go s.follow(ctx, w)

	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }} // a held question ends with the server
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	host, review := ln.Addr().String(), "; a grade can be overridden on the page"
	if so.allowRemote {
		host, review = listen, "; read-only, as --allow-remote serves it"
	}
	fmt.Fprintf(stderr, "serving the report of %s at http://%s/ (it reloads as the outputs change%s; Ctrl-C stops)\n", dir, host, review)
	select {
	case err := <-served:
		return fmt.Errorf("--serve: %w", err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		return fmt.Errorf("--serve: %w", err)
	}
	fmt.Fprintln(stderr, "stopped serving")
	return nil
}

// serveAddr is where --serve listens: a port alone (8080, :8080) is
// 127.0.0.1's; a host must be a loopback one (127.0.0.1, ::1, localhost)
// unless allowRemote, for the page shows every prompt and completion to
// whoever reaches it.
func serveAddr(addr string, allowRemote bool) (string, error) {
	if _, err := strconv.Atoi(addr); err == nil {
		addr = ":" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", cli.Usagef("--serve %q: give 127.0.0.1:PORT, or PORT", addr)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if ip := net.ParseIP(host); !allowRemote && host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return "", cli.Usagef("--serve %s: not a loopback address, and the page shows every prompt and completion to whoever reaches it: add --allow-remote to serve it there", addr)
	}
	return net.JoinHostPort(host, port), nil
}

// newServer is the server of so listening at addr. On loopback it
// answers only to the names of addr, and takes verdicts.
func newServer(stderr io.Writer, addr net.Addr, so serveOptions) (*server, error) {
	s := &server{dir: so.dir, opt: so.page, stderr: stderr, changed: make(chan struct{}), seal: so.seal}
	var err error
	if s.epoch, err = randomHex(4); err != nil {
		return nil, err
	}
	if so.allowRemote {
		// Whoever reaches the page could send verdicts, and any name
		// is served: a page elsewhere could name itself this server
		// (DNS rebinding) and pass every check. Read-only, then.
		return s, nil
	}
	// A page elsewhere may point its own name at 127.0.0.1 (DNS
	// rebinding) to read this one: only the names of this address
	// are served.
	port := strconv.Itoa(addr.(*net.TCPAddr).Port)
	s.hosts = []string{addr.String()}
	for _, h := range []string{"localhost", "127.0.0.1", "::1"} {
		s.hosts = append(s.hosts, net.JoinHostPort(h, port))
	}
	if s.token, err = randomHex(16); err != nil {
		return nil, err
	}
	s.opt.Verdicts = &report.Verdicts{URL: "/verdict", Token: s.token, By: so.by, Accept: true}
	return s, nil
}

// server serves the page and the page's question.
type server struct {
	dir    string
	opt    report.Options
	stderr io.Writer
	hosts  []string // the Host headers served; nil: any

	epoch string // this server's, so that a page from an earlier one reloads
	token string // the served page's, which each verdict carries; "": none taken

	record sync.Mutex                   // one verdict at a time
	seal   func() (*outfile.Key, error) // the machine's key, asked once
	key    *outfile.Key
	asked  bool

	mu      sync.Mutex
	version int           // the outputs' changes seen so far
	changed chan struct{} // closed at the next change

	render sync.Mutex // one page made at a time
	page   []byte     // the page as of version cached
	cached string
}

// follow counts the folder's changes until ctx ends.
func (s *server) follow(ctx context.Context, w *watch.Watcher) {
	for {
		if _, err := w.Next(ctx); err != nil {
			return
		}
		s.mu.Lock()
		s.version++
		close(s.changed)
		s.changed = make(chan struct{})
		s.mu.Unlock()
	}
}

// current is the outputs' version and the channel closed when it changes.
func (s *server) current() (string, chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprintf("%s-%d", s.epoch, s.version), s.changed
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/verdict" {
		s.serveVerdict(w, r) // which checks the Host too, and says why in JSON
		return
	}
	if s.hosts != nil && !slices.Contains(s.hosts, r.Host) {
		http.Error(w, "this server answers to "+s.hosts[0]+" only", http.StatusForbidden)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "GET only", http.StatusMethodNotAllowed)
		return
	}
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	switch r.URL.Path {
	case "/":
		s.servePage(w, r)
	case "/changes":
		s.serveChanges(w, r)
	default:
		http.NotFound(w, r)
	}
}

// servePage serves the report as of now, made once per version. A report
// that cannot be made (no outputs yet) is a page saying why, which reloads
// as the outputs change too.
func (s *server) servePage(w http.ResponseWriter, r *http.Request) {
	s.render.Lock()
	defer s.render.Unlock()
	if version, _ := s.current(); s.cached != version {
		var b bytes.Buffer
		opt := s.opt
		opt.Live = "/changes?since=" + version
		if err := report.Write(r.Context(), &b, s.dir, opt); err != nil {
			if r.Context().Err() != nil {
				return
			}
			msg := fmt.Sprintf("No report: %v.", err)
			if errors.Is(err, agg.ErrNoOutputs) {
				msg = fmt.Sprintf("No output files in %s yet: this page shows them when they come.", s.dir)
			} else {
				fmt.Fprintf(s.stderr, "agg --serve: %v\n", err)
			}
			b.Reset()
			if err := report.WriteNotice(&b, "evalmd report", msg, opt.Live); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
		}
		s.page, s.cached = b.Bytes(), version
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(s.page)
}

// serveChanges answers a page made at version since: 205 Reset Content
// when the outputs changed since (at once, or as soon as they do), 204 No
// Content when they did not within longPoll.
func (s *server) serveChanges(w http.ResponseWriter, r *http.Request) {
	version, changed := s.current()
	if r.URL.Query().Get("since") != version {
		w.WriteHeader(http.StatusResetContent)
		return
	}
	t := time.NewTimer(longPoll)
	defer t.Stop()
	select {
	case <-changed:
		w.WriteHeader(http.StatusResetContent)
	case <-t.C:
		w.WriteHeader(http.StatusNoContent)
	case <-r.Context().Done():
	}
}

// randomHex is n random bytes in hex.
func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("--serve: %w", err)
	}
	return hex.EncodeToString(b), nil
}
