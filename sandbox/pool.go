package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/evalmd/evalmd/internal/outfile"
)

// errClosed is returned by a closed Pool or Session.
var errClosed = errors.New("sandbox: closed")

// Pool hands out sessions: at most Config.MaxInFlight open at once, each
// from an interpreter started ahead of time when one is ready.
type Pool struct {
	cfg      Config
	dir      string // holds the staging folders
	versions Versions

	slots  chan struct{} // one token per open session
	spares chan spare    // warm interpreters, handed over by the fillers
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu        sync.Mutex
	sessions  map[*Session]struct{}
	closeOnce sync.Once

	idle atomic.Int32 // warm interpreters waiting to be taken (benchmarks wait for one)
	// warmMemory is the Memory warm interpreters are started with: the
	// last session's (its tmpfs sizes are fixed at start).
	warmMemory atomic.Int64
}

type spare struct {
	it  *interp
	err error
}

// NewPool checks the sandbox by starting its first interpreter (so a
// missing bubblewrap, Python or pandas is an error here, naming the Debian
// packages), then keeps Config.Warm interpreters started ahead.
func NewPool(ctx context.Context, cfg Config) (*Pool, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.Backend == None {
		fmt.Fprintf(cfg.Warn, "warning: sandbox none: model-written Python runs unconfined on this machine, as you (uid %d): it can read and change your files and read your API keys (in /proc/%d/environ); only rlimits apply\n",
			os.Geteuid(), os.Getpid())
	}
	dir, err := os.MkdirTemp(cfg.TempDir, "evalmd-sandbox-")
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	// Traversable, not listable, by the unprivileged uid bwrap runs as.
	if err := os.Chmod(dir, 0o711); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	first, err := startInterp(ctx, cfg, dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	p := &Pool{
		cfg:      cfg,
		dir:      dir,
		versions: first.versions,
		slots:    make(chan struct{}, cfg.MaxInFlight),
		sessions: map[*Session]struct{}{},
	}
	p.versions.Sandbox = cfg.sandboxName()
	p.warmMemory.Store(cfg.Memory)
	p.ctx, p.cancel = context.WithCancel(context.Background())
	if cfg.Warm < 0 {
		first.kill()
		return p, nil
	}
	p.spares = make(chan spare)
	for i := 0; i < cfg.Warm; i++ {
		p.wg.Add(1)
		go p.fill(first)
		first = nil
	}
	return p, nil
}

// Versions are the Python, pandas and numpy versions in the sandbox, and
// the sandbox itself.
func (p *Pool) Versions() Versions { return p.versions }

// fill keeps one warm interpreter ready until a session takes it, then
// starts the next. A failed start is handed over too, so a session waiting
// for an interpreter gets the error instead of waiting for ever.
func (p *Pool) fill(it *interp) {
	defer p.wg.Done()
	backoff := time.Second
	for {
		s := spare{it: it}
		if it == nil {
			cfg := p.cfg
			cfg.Memory = p.warmMemory.Load()
			s.it, s.err = startInterp(p.ctx, cfg, p.dir)
		}
		it = nil
		if p.ctx.Err() != nil {
			if s.it != nil {
				s.it.kill()
			}
			return
		}
		if s.err == nil {
			p.idle.Add(1)
		}
		select {
		case p.spares <- s:
			if s.err == nil {
				p.idle.Add(-1)
			}
		case <-p.ctx.Done():
			if s.it != nil {
				s.it.kill()
			}
			return
		}
		if s.err == nil {
			backoff = time.Second
			continue
		}
		select {
		case <-time.After(backoff):
		case <-p.ctx.Done():
			return
		}
		backoff = min(2*backoff, 30*time.Second)
	}
}

// get returns a ready interpreter for cfg: a warm one started with its
// Memory, or one started now when the pool keeps none. Warm interpreters
// started with another Memory are stopped; their fillers then start ones
// with cfg's (claim has set warmMemory), which get waits for.
func (p *Pool) get(ctx context.Context, cfg Config) (*interp, error) {
	if p.spares == nil {
		return startInterp(ctx, cfg, p.dir)
	}
	for {
		select {
		case s := <-p.spares:
			if s.err != nil {
				return nil, s.err
			}
			select {
			case <-s.it.exited: // died while waiting: take another
				s.it.kill()
				continue
			default:
			}
			if s.it.cfg.Memory != cfg.Memory {
				s.it.kill()
				continue
			}
			return s.it, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-p.ctx.Done():
			return nil, errClosed
		}
	}
}

// claim returns an interpreter with the files in its working directory
// and the limits lim, warm when one was started with lim's memory.
func (p *Pool) claim(ctx context.Context, files []file, lim Limits) (*interp, error) {
	cfg := p.cfg.limited(lim)
	p.warmMemory.Store(cfg.Memory)
	it, err := p.get(ctx, cfg)
	if err != nil {
		return nil, err
	}
	it.cfg = cfg
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.name
		if err := stage(f.path, filepath.Join(it.stage, f.name)); err != nil {
			it.kill()
			return nil, fmt.Errorf("sandbox: file %s: %w", f.path, err)
		}
	}
	if err := it.setFiles(ctx, names); err != nil {
		it.kill()
		return nil, err
	}
	return it, nil
}

// Open starts a session with files (host paths) visible read-only in its
// working directory under their base names. It waits while
// Config.MaxInFlight sessions are open.
func (p *Pool) Open(ctx context.Context, files []string) (*Session, error) {
	return p.OpenWith(ctx, files, Limits{})
}

// OpenWith is Open with the session's own limits over the pool's: every
// call of the session, and every interpreter restarted for it, has them.
func (p *Pool) OpenWith(ctx context.Context, files []string, lim Limits) (*Session, error) {
	fs, err := resolve(files)
	if err != nil {
		return nil, err
	}
	if p.ctx.Err() != nil {
		return nil, errClosed
	}
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-p.ctx.Done():
		return nil, errClosed
	}
	s := &Session{pool: p, files: fs, limits: lim}
	p.mu.Lock()
	p.sessions[s] = struct{}{}
	closed := p.ctx.Err() != nil // Close cancels before it collects the sessions
	p.mu.Unlock()
	if closed {
		s.Close()
		return nil, errClosed
	}
	it, err := p.claim(ctx, fs, lim)
	if err != nil {
		s.Close()
		return nil, err
	}
	s.it = it
	return s, nil
}

// Run runs code once in a fresh session with files: the one-shot mode.
func (p *Pool) Run(ctx context.Context, files []string, code string) (Result, error) {
	return p.RunWith(ctx, files, code, Limits{})
}

// RunWith is Run with the call's own limits over the pool's.
func (p *Pool) RunWith(ctx context.Context, files []string, code string, lim Limits) (Result, error) {
	s, err := p.OpenWith(ctx, files, lim)
	if err != nil {
		return Result{}, err
	}
	defer s.Close()
	return s.Exec(ctx, code)
}

// Close stops every session and warm interpreter and removes the staging
// folders.
func (p *Pool) Close() error {
	p.closeOnce.Do(func() {
		p.cancel()
		p.mu.Lock()
		open := make([]*Session, 0, len(p.sessions))
		for s := range p.sessions {
			open = append(open, s)
		}
		p.mu.Unlock()
		for _, s := range open {
			s.Close()
		}
		p.wg.Wait()
		os.RemoveAll(p.dir)
	})
	return nil
}

// Session is one question's interpreter: state persists between Exec
// calls, as in a Jupyter kernel.
type Session struct {
	pool   *Pool
	files  []file
	limits Limits
	run    sync.Mutex // one call at a time

	mu     sync.Mutex
	it     *interp // nil after a restart, until the next call
	closed bool
}

// Exec runs code in the session's interpreter and returns its output.
// A call stopped by a limit, or whose interpreter died, restarts the
// interpreter (the Result says so). The error is for a cancelled ctx, a
// closed session, or an interpreter that could not be started.
func (s *Session) Exec(ctx context.Context, code string) (Result, error) {
	s.run.Lock()
	defer s.run.Unlock()
	s.mu.Lock()
	it, closed := s.it, s.closed
	s.mu.Unlock()
	if closed {
		return Result{}, errClosed
	}
	if it == nil {
		var err error
		if it, err = s.pool.claim(ctx, s.files, s.limits); err != nil {
			return Result{}, err
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			it.kill()
			return Result{}, errClosed
		}
		s.it = it
		s.mu.Unlock()
	}
	r, err := it.exec(ctx, code)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Result{}, errClosed
	}
	if err != nil || r.Restarted {
		it.kill()
		s.it = nil
	}
	return r, err
}

// Close stops the session's interpreter and frees its place.
func (s *Session) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	it := s.it
	s.it = nil
	s.mu.Unlock()
	if it != nil {
		it.kill()
	}
	p := s.pool
	p.mu.Lock()
	delete(p.sessions, s)
	p.mu.Unlock()
	<-p.slots
	return nil
}

// file is one of a session's files.
type file struct {
	path string // host path, links resolved
	name string // base name in the working directory
}

func resolve(paths []string) ([]file, error) {
	fs := make([]file, 0, len(paths))
	seen := map[string]string{}
	for _, p := range paths {
		name := filepath.Base(p)
		if prev, ok := seen[name]; ok {
			return nil, fmt.Errorf("sandbox: files %s and %s have the same base name", prev, p)
		}
		seen[name] = p
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			real, err = filepath.Abs(real)
		}
		if err != nil {
			return nil, fmt.Errorf("sandbox: file %s: %w", p, err)
		}
		fi, err := os.Stat(real)
		if err != nil {
			return nil, fmt.Errorf("sandbox: file %s: %w", p, err)
		}
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("sandbox: file %s: not a regular file", p)
		}
		fs = append(fs, file{path: real, name: name})
	}
	return fs, nil
}

// stage puts src at dst, in an interpreter's staging folder: a hard link
// when src is world-readable (the sandbox's host uid must read it) and on
// the same file system, else a read-only copy.
func stage(src, dst string) error {
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	if fi.Mode().Perm()&0o004 != 0 {
		if err := outfile.HardLink(src, dst); err == nil {
			return nil
		}
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := outfile.Create(dst, 0o444)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
