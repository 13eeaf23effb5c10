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
	"github.com/evalmd/evalmd/report"
	"github.com/evalmd/evalmd/result"
)

// longPoll is how long a page's question "did the outputs change?" is held
// open before the server says "not yet" (the page asks again at once).
const longPoll = 25 * time.Second

// serveFlags are the flags that go with --serve: the folder and what the
// report counts. The others write files or lay out the markdown.
var serveFlags = []string{"i", "serve", "allow-remote", "include-dry-runs", "latest-version", "max-discrepancies", "reducer", "v"}

// serve is agg --serve ADDR: the HTML report of the folder, made afresh
// when its output files change, at http://ADDR/, until ctx ends. The page
// asks /changes whether they changed since it was made and reloads itself
// when they did.
func serve(ctx context.Context, stderr io.Writer, fs *flag.FlagSet, addr string, allowRemote bool, dir string, opt report.Options) error {
	var other []string
	fs.Visit(func(f *flag.Flag) {
		if !slices.Contains(serveFlags, f.Name) {
			other = append(other, "-"+f.Name)
		}
	})
	if len(other) > 0 {
		return cli.Usagef("--serve serves the HTML report alone; %v go without it", other)
	}
	listen, err := serveAddr(addr, allowRemote)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("--serve: %w", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	s := &server{dir: dir, opt: opt, stderr: stderr, changed: make(chan struct{})}
	if s.epoch, err = randomHex(); err != nil {
		ln.Close()
		return err
	}
	if !allowRemote {
		// A page elsewhere may point its own name at 127.0.0.1 (DNS
		// rebinding) to read this one: only the names of this address
		// are served.
		s.hosts = []string{ln.Addr().String()}
		for _, h := range []string{"localhost", "127.0.0.1", "::1"} {
			s.hosts = append(s.hosts, net.JoinHostPort(h, strconv.Itoa(port)))
		}
	}
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
	host := ln.Addr().String()
	if allowRemote {
		host = listen
	}
	fmt.Fprintf(stderr, "serving the report of %s at http://%s/ (it reloads as the outputs change; Ctrl-C stops)\n", dir, host)
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

// server serves the page and the page's question.
type server struct {
	dir    string
	opt    report.Options
	stderr io.Writer
	hosts  []string // the Host headers served; nil: any

	epoch string // this server's, so that a page from an earlier one reloads

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

// randomHex is 8 random hex digits.
func randomHex() (string, error) {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("--serve: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}
